/**
 * The audit of `--` in the read-only check, rule by rule. After `--` a POSIX parser takes every
 * word for an operand, whatever it starts with, so a rule that counts operands must count those
 * words; a rule that scans for harmful flags may keep refusing them there (that only asks). Some
 * parsers give `--` another meaning: find ends only its leading -H/-L/-P options with it, git
 * separates revisions from paths with it, and BSD parsers stop at the first operand, so a later
 * `--` or `-x` is an operand too.
 *
 * Rows marked `fixed` were read-only before this audit: the table fails on that code. All but
 * the `--=…` ones wrote; those are ambiguous to today's parsers (getopt takes the empty name for
 * a prefix of every option) and are refused on principle. The other rows held already.
 */
import { describe, expect, it } from 'vitest';
import { isReadOnlyCommand } from '../../../src/core/permissions/shell-readonly.js';

interface Row {
  command: string;
  readOnly: boolean;
  why: string;
  /** True when the code before the audit got this row wrong. */
  fixed?: true;
}

const UNIQ: Row[] = [
  { command: 'uniq a.txt -- -x', readOnly: false, why: 'writes the file -x (the report)', fixed: true },
  { command: 'uniq -- -x -y', readOnly: false, why: 'reads -x, writes -y', fixed: true },
  { command: 'uniq -- a.txt -x', readOnly: false, why: 'writes the file -x', fixed: true },
  { command: 'uniq -- -- out', readOnly: false, why: 'the second -- is the input file; writes out', fixed: true },
  { command: 'uniq a.txt --', readOnly: false, why: 'BSD uniq stops at a.txt: -- is the output file', fixed: true },
  { command: 'uniq a.txt -c', readOnly: false, why: 'BSD uniq (and POSIXLY_CORRECT) writes the file -c', fixed: true },
  { command: 'uniq -c -- in out', readOnly: false, why: 'two operands: writes out' },
  { command: 'uniq - -- out', readOnly: false, why: 'stdin, then out is written' },
  { command: 'uniq - out', readOnly: false, why: 'writes out' },
  { command: 'uniq -c -- a.txt', readOnly: true, why: 'one operand' },
  { command: 'uniq -- -x', readOnly: true, why: 'reads the file -x' },
  { command: 'uniq -- --', readOnly: true, why: 'reads the file --' },
  { command: 'uniq --', readOnly: true, why: 'stdin to stdout' },
  { command: 'uniq -', readOnly: true, why: '- is stdin' },
  { command: 'uniq -- -', readOnly: true, why: '- is stdin' },
  { command: 'uniq --skip-fields=1 -c a.txt', readOnly: true, why: 'flags before one operand' },
];

const BASE64: Row[] = [
  { command: 'base64 -d in.b64 out', readOnly: false, why: 'fourmilab base64 (DragonFly, ports) writes out', fixed: true },
  { command: 'base64 -d in.b64 -- -x', readOnly: false, why: 'a second operand, the output file', fixed: true },
  { command: 'base64 -d -- -x -y', readOnly: false, why: 'a second operand, the output file', fixed: true },
  { command: 'base64 --output=x --', readOnly: false, why: 'BSD base64 writes x' },
  { command: 'base64 -- -o', readOnly: false, why: 'a file named -o, refused anyway: it only asks' },
  { command: 'base64 -- --output=x', readOnly: false, why: 'a file, refused anyway: it only asks' },
  { command: 'base64 -d -- in.b64', readOnly: true, why: 'one operand' },
  { command: 'base64 -d -', readOnly: true, why: '- is stdin' },
];

const FIND: Row[] = [
  { command: 'find -- -delete', readOnly: false, why: '-- ends only -H/-L/-P: -delete is still an action' },
  { command: 'find -- . -name v -delete', readOnly: false, why: 'deletes' },
  { command: 'find . -- -delete', readOnly: false, why: 'a harmful word anywhere' },
  { command: 'find . -name -exec', readOnly: false, why: "-exec is -name's value, refused anyway" },
  { command: 'find -- . -name x', readOnly: true, why: 'only prints' },
];

const RG: Row[] = [
  { command: 'rg -z -- foo', readOnly: false, why: 'runs decompressors' },
  { command: 'rg --pre=./x --', readOnly: false, why: 'runs ./x' },
  { command: 'rg -- -z f', readOnly: false, why: 'the pattern -z, refused anyway' },
  { command: 'rg -- --pre=./x f', readOnly: false, why: 'a pattern, refused anyway' },
  { command: 'rg --=./x foo', readOnly: false, why: '--=… is a long option with an empty name, not --', fixed: true },
  { command: 'rg -n -- -foo src', readOnly: true, why: 'a pattern that starts with -' },
  { command: 'rg foo -- -', readOnly: true, why: '- is stdin' },
];

const TREE: Row[] = [
  { command: 'tree -o out --', readOnly: false, why: 'writes out' },
  { command: 'tree -- -o', readOnly: false, why: 'a directory named -o, refused anyway' },
  { command: 'tree --=out', readOnly: false, why: '--=… is a long option with an empty name', fixed: true },
  { command: 'tree -- src', readOnly: true, why: 'only prints' },
];

const FILE: Row[] = [
  { command: 'file -C -- magic', readOnly: false, why: 'compiles magic: writes magic.mgc' },
  { command: 'file -- -C', readOnly: false, why: 'a file named -C, refused anyway' },
  { command: 'file --=x', readOnly: false, why: '--=… is a long option with an empty name', fixed: true },
  { command: 'file -- a b -', readOnly: true, why: 'every operand is a file to read' },
];

const GIT: Row[] = [
  { command: 'git diff --output=x --', readOnly: false, why: 'before --: writes x' },
  { command: 'git diff --ext-diff -- a.ts', readOnly: false, why: 'before --: runs the external diff' },
  { command: 'git diff -- --output=x', readOnly: false, why: 'a path, refused anyway: it only asks' },
  { command: 'git status --ignore-submodules=none --', readOnly: false, why: 'submodule config runs programs' },
  { command: 'git diff --=x', readOnly: false, why: '--=… is a long option with an empty name', fixed: true },
  { command: 'git branch -- new', readOnly: false, why: 'creates the branch new' },
  { command: 'git branch -a --', readOnly: false, why: 'only listing flags pass' },
  { command: 'git -- status', readOnly: false, why: 'global options are refused' },
  { command: 'git log -- src', readOnly: true, why: 'paths after --' },
  { command: 'git diff HEAD -- a.ts -', readOnly: true, why: 'paths after --' },
  { command: 'git diff -- -- a.ts', readOnly: true, why: 'the second -- is a path' },
];

const PRINTS: Row[] = [
  { command: 'cat -- -x', readOnly: true, why: 'every flag and operand only reads' },
  { command: 'grep -- -x a.txt --', readOnly: true, why: 'every flag and operand only reads' },
  { command: 'ls -- -x --', readOnly: true, why: 'every flag and operand only reads' },
  { command: 'echo --', readOnly: true, why: 'prints --' },
];

/** Not in the table at all: writers, and wrappers that run their operands. */
const UNKNOWN: Row[] = [
  { command: 'sort -- -o', readOnly: false, why: 'not in the table' },
  { command: 'sort -o out --', readOnly: false, why: 'not in the table' },
  { command: 'tee -- -x', readOnly: false, why: 'not in the table' },
  { command: 'cp -- -x y', readOnly: false, why: 'not in the table' },
  { command: 'sed -- -i f', readOnly: false, why: 'not in the table' },
  { command: 'xargs -- rm', readOnly: false, why: 'runs its operands' },
  { command: 'env -- rm x', readOnly: false, why: 'runs its operands' },
  { command: 'timeout -- 1 rm x', readOnly: false, why: 'runs its operands' },
  { command: 'nice -- rm x', readOnly: false, why: 'runs its operands' },
  { command: '-- ls', readOnly: false, why: 'not a command' },
];

describe.each([
  ['uniq', UNIQ],
  ['base64', BASE64],
  ['find', FIND],
  ['rg', RG],
  ['tree', TREE],
  ['file', FILE],
  ['git', GIT],
  ['commands that only print', PRINTS],
  ['commands not in the table', UNKNOWN],
])('-- and %s', (_, rows) => {
  it.each(rows)('$command: read-only $readOnly ($why)', ({ command, readOnly }) => {
    expect(isReadOnlyCommand(command)).toBe(readOnly);
  });
});
