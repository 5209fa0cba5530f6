import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Word, splitCommands } from '../../../src/core/permissions/shell-words.js';

const texts = (words: Word[] | undefined): string[] | undefined => words?.map((w) => w.text);

describe('splitCommands', () => {
  const CASES: [string, string[][] | undefined][] = [
    ['ls -la src', [['ls', '-la', 'src']]],
    ['grep "a b" f', [['grep', 'a b', 'f']]],
    ['grep \'a\'"b"c\\ d f', [['grep', 'abc d', 'f']]],
    ['grep "foo$" f', [['grep', 'foo$', 'f']]],
    ['grep foo$ f', [['grep', 'foo$', 'f']]],
    ["echo $'a b'", [['echo', 'a b']]],
    ['echo ""', [['echo', '']]],
    ['a | b && c || d', [['a'], ['b'], ['c'], ['d']]],
    ['git log @{u}..HEAD', [['git', 'log', '@{u}..HEAD']]],
    ['echo -de{l,\\}ete', [['echo', '-de{l,}ete']]],
    ['echo a~ HEAD~1', [['echo', 'a~', 'HEAD~1']]],
    // Refused: the text bash runs is not the text we read.
    ['find . $"-delete"', undefined],
    ['find . -de$"lete"', undefined],
    ["find . $'\\x2ddelete'", undefined],
    ['find . -de{l,}ete', undefined],
    ['ls ~-', undefined],
    ['echo "$-"', undefined],
    ['ls\x01', undefined],
  ];

  it.each(CASES)('%j', (command, expected) => {
    const commands = splitCommands(command);
    expect(commands?.map((c) => texts(c))).toEqual(expected);
  });

  it('marks words bash may rewrite', () => {
    const [words] = splitCommands('ls *.ts ~ ~/x "*" a=~ plain') ?? [];
    expect(words?.map((w) => w.expands)).toEqual([false, true, true, true, false, true, false]);
  });
});

/**
 * The tokenizer against bash itself: random commands built from the characters that make
 * shells surprising. For every one the tokenizer accepts, bash must see exactly the same words
 * (printed by `printf '%s\0'`). A mismatch is a way to make the read-only check see one
 * command while bash runs another.
 */
describe('splitCommands agrees with bash', () => {
  let cwd: string;
  beforeAll(() => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'outrider-words-'));
  });
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  const FRAGMENTS = [
    'a',
    'b',
    '-x',
    '--o',
    ' ',
    ' ',
    '\t',
    '$',
    '$"',
    "$'",
    '"',
    '"',
    "'",
    "'",
    '\\',
    '\\\\',
    '{',
    '}',
    ',',
    '..',
    '~',
    '/',
    '=',
    ':',
    '#',
    '%',
    '@',
    '!',
    '^',
    '+',
    '-',
    '\u00a0',
    'é',
    '\\"',
    "\\'",
    '\\$',
    '\\{',
  ];

  /** mulberry32: small, seeded, the same cases on every run. */
  function random(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  it('on 6000 seeded random commands', () => {
    const next = random(20240601);
    const accepted: { command: string; words: string[] }[] = [];
    for (let i = 0; i < 6000; i++) {
      const length = 1 + Math.floor(next() * 8);
      let command = '';
      for (let j = 0; j < length; j++) command += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)];
      const commands = splitCommands(command);
      if (!commands || commands.length !== 1 || commands[0].length === 0) continue;
      if (commands[0].some((w) => w.expands)) continue; // globs and $HOME: bash rewrites them on purpose
      accepted.push({ command, words: commands[0].map((w) => w.text) });
    }
    expect(accepted.length).toBeGreaterThan(500);

    const script = accepted.map(({ command }) => `printf '%s\\0' ${command}; printf '\\1'\n`).join('');
    const result = spawnSync('bash', ['--noprofile', '--norc', '-s'], {
      cwd,
      input: script,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent-home', LC_ALL: 'C.UTF-8' },
    });
    expect(result.stderr).toBe('');
    const printed = result.stdout.split('\x01').slice(0, -1);
    expect(printed).toHaveLength(accepted.length);
    const mismatches = accepted
      .map(({ command, words }, i) => ({ command, ours: words, bash: printed[i].split('\0').slice(0, -1) }))
      .filter(({ ours, bash }) => JSON.stringify(ours) !== JSON.stringify(bash));
    expect(mismatches).toEqual([]);
  });
});
