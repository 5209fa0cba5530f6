/**
 * Decides whether a shell command only reads, so `bash` may run it without asking.
 *
 * Deliberately conservative: anything the tokenizer does not fully understand, any command
 * not in the table below, and any flag in a command's table of harmful flags make it "not
 * read-only", which only means the user gets asked. A false "true" is the bug to avoid, and
 * the bash tool backs every "true" with a hardened environment (read-only-sandbox.ts).
 * The flag tables follow codex's `command_safety/is_safe_command.rs`.
 */
import { type Word, splitCommands } from './shell-words.js';

/** True only for a single command, or `|` / `&&` / `||` joins of them, that cannot change anything. */
export function isReadOnlyCommand(command: string): boolean {
  const commands = splitCommands(command);
  return commands !== undefined && commands.every(isReadOnlySimpleCommand);
}

function isReadOnlySimpleCommand(words: Word[]): boolean {
  if (words.length === 0) return false;
  const [name, ...args] = words;
  if (name.expands || !Object.hasOwn(RULES, name.text)) return false;
  const rule = RULES[name.text];
  if (!rule.expansions && args.some((a) => a.expands)) return false;
  if (args.some((a) => isUnsafeArg(rule, a.text))) return false;
  return rule.check ? rule.check(args.map((a) => a.text)) : true;
}

/** What makes one command harmful; every field is optional. */
interface CommandRule {
  /** Long options that write, delete or run programs. Abbreviations count (`--out` for `--output`). */
  unsafeLong?: string[];
  /** Short option letters that do, alone or in a cluster (`-nz`). */
  unsafeShort?: string;
  /** Words harmful wherever they appear, matched as prefixes (find's `-exec`, `-delete`). */
  unsafeWords?: string[];
  /** Glob or `~` words are allowed: for commands whose every flag only changes what is printed. */
  expansions?: boolean;
  /** A further check on the argument texts. */
  check?: (args: string[]) => boolean;
}

/**
 * Words after `--` are checked too, though a POSIX parser takes them for operands: refusing a
 * file named `-o` only asks, and not every parser ends its options there (`find -- -delete`
 * deletes: find's `--` ends only its leading -H/-L/-P).
 */
function isUnsafeArg(rule: CommandRule, arg: string): boolean {
  if (rule.unsafeWords?.some((word) => arg.startsWith(word))) return true;
  if (arg.startsWith('--')) return rule.unsafeLong !== undefined && isLongOptionIn(arg, rule.unsafeLong);
  if (arg.startsWith('-') && arg.length > 1 && rule.unsafeShort) {
    return [...arg.slice(1)].some((letter) => rule.unsafeShort?.includes(letter));
  }
  return false;
}

/**
 * `--name` or `--name=value` where name is one of `options` or an abbreviation of one:
 * git (parse-options) and other parsers accept any unambiguous prefix.
 */
export function isLongOptionIn(arg: string, options: string[]): boolean {
  if (arg === '--') return false; // ends the options
  // `--=x` is not `--` but a long option with an empty name, which getopt takes for a prefix of every option.
  const name = arg.split('=', 1)[0];
  return options.some((option) => option.startsWith(name));
}

/** Commands whose every flag only reads or prints. */
const PRINTS: CommandRule = { expansions: true };

const FIND_UNSAFE = [
  // Run programs.
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  // Delete matches.
  '-delete',
  // Write file names into a file.
  '-fls',
  '-fprint',
  '-fprint0',
  '-fprintf',
];

/**
 * The words a command may take for operands: every word from the first that is not an option
 * (`-` is stdin, an operand), and every word after the first `--`, whatever it starts with.
 * This may count more words than the command does, which only asks, and never fewer: BSD
 * parsers (and GNU's under POSIXLY_CORRECT) stop at the first operand, so a later `-c` or `--`
 * is an operand there; a flag's separate value (`-f 1`) counts as one.
 */
function operands(args: string[]): string[] {
  const end = args.findIndex((a) => a === '--' || a === '-' || !a.startsWith('-'));
  if (end < 0) return [];
  return args.slice(args[end] === '--' ? end + 1 : end);
}

/** `uniq IN OUT` and fourmilab's `base64 -d IN OUT` (packaged for the BSDs) write OUT: at most one operand. */
const atMostOneOperand = (args: string[]): boolean => operands(args).length <= 1;

const GIT_READ_SUBCOMMANDS = new Set(['status', 'diff', 'log', 'show', 'branch', 'rev-parse', 'ls-files', 'blame']);

/** Flags that write files or run programs from diff, log, show, status and friends. */
const GIT_UNSAFE_LONG = [
  '--output', // writes the diff to a file (`--output-indicator-*` are other options)
  '--ext-diff', // runs diff.external / diff.<driver>.command
  '--textconv', // runs diff.<driver>.textconv
  '--show-signature', // runs gpg.program
  '--exec',
  '--paginate',
  '--open-files-in-pager',
  '--recurse-submodules', // runs git in submodules, whose own config we do not see
];

const GIT_BRANCH_LIST_FLAGS = new Set([
  '-a',
  '-r',
  '-v',
  '-vv',
  '-l',
  '--all',
  '--remotes',
  '--verbose',
  '--list',
  '--show-current',
]);

function gitIsReadOnly(args: string[]): boolean {
  // Global options before the subcommand (`-c core.pager=…`, `-C dir`, `--git-dir`) are refused outright.
  const [sub, ...rest] = args;
  if (sub === undefined || !GIT_READ_SUBCOMMANDS.has(sub)) return false;
  for (const arg of rest) {
    // `--text` is an option of its own, not an abbreviation of `--textconv`.
    if (arg === '--text') continue;
    if (arg.startsWith('--') && isLongOptionIn(arg, GIT_UNSAFE_LONG)) return false;
    // The sandbox ignores submodules (their config could run programs); only "all" keeps it so.
    if (arg.startsWith('--') && isLongOptionIn(arg, ['--ignore-submodules'])) {
      if (arg !== '--ignore-submodules' && arg !== '--ignore-submodules=all') return false;
    }
    // %G? and friends in a format verify signatures with gpg.program.
    if (arg.includes('%G')) return false;
  }
  // `git branch name` creates a branch, `-d`/`-m` delete and rename: only listing flags pass.
  if (sub === 'branch') return rest.every((a) => GIT_BRANCH_LIST_FLAGS.has(a));
  return true;
}

/** The commands we know, each with what makes it harmful. */
const RULES: Record<string, CommandRule> = {
  ls: PRINTS,
  pwd: PRINTS,
  cat: PRINTS,
  head: PRINTS,
  tail: PRINTS,
  wc: PRINTS,
  echo: PRINTS,
  grep: PRINTS,
  which: PRINTS,
  stat: PRINTS,
  du: PRINTS,
  df: PRINTS,
  cut: PRINTS,
  nl: PRINTS,
  paste: PRINTS,
  rev: PRINTS,
  seq: PRINTS,
  tr: PRINTS,
  tac: PRINTS,
  true: PRINTS,
  false: PRINTS,
  id: PRINTS,
  uname: PRINTS,
  whoami: PRINTS,
  uniq: { check: atMostOneOperand },
  // BSD base64 writes with -o / --output, fourmilab's to a second operand.
  base64: { unsafeLong: ['--output'], unsafeShort: 'o', check: atMostOneOperand },
  find: { unsafeWords: FIND_UNSAFE },
  // --pre runs a program on every file, --hostname-bin runs one, -z runs decompressors.
  rg: { unsafeLong: ['--pre', '--hostname-bin', '--search-zip'], unsafeShort: 'z' },
  // -o writes the listing to a file; -R writes 00Tree.html into every directory.
  tree: { unsafeLong: ['--output'], unsafeShort: 'oR' },
  // -C compiles a magic file (writes); -z / -Z may run external decompressors.
  file: { unsafeLong: ['--compile', '--uncompress', '--uncompress-noreport'], unsafeShort: 'CzZ' },
  git: { check: gitIsReadOnly },
};
