/**
 * Decides whether a shell command only reads, so `bash` may run it without asking.
 *
 * Deliberately conservative: anything this small tokenizer does not fully understand is
 * "not read-only", which only means the user gets asked. A false "true" is the bug to avoid.
 */

/** One shell word after quote removal. */
interface Word {
  text: string;
  /** Unquoted glob or brace characters: the shell may turn it into other words, even `-delete`. */
  expands: boolean;
}

type Token = { type: 'word'; word: Word } | { type: 'op'; op: '|' | '&&' | '||' };

/** Characters that end an unquoted word or start an operator we refuse. */
const REFUSED_UNQUOTED = new Set([';', '<', '>', '(', ')', '`']);
const GLOB_CHARS = new Set(['*', '?', '[']);

/** True only for a single command, or `|` / `&&` / `||` joins of them, that cannot change anything. */
export function isReadOnlyCommand(command: string): boolean {
  const tokens = tokenize(command);
  if (!tokens || tokens.length === 0) return false;
  const commands: Word[][] = [[]];
  for (const token of tokens) {
    if (token.type === 'op') commands.push([]);
    else commands[commands.length - 1].push(token.word);
  }
  return commands.every(isReadOnlySimpleCommand);
}

function isReadOnlySimpleCommand(words: Word[]): boolean {
  if (words.length === 0) return false;
  const [name, ...args] = words;
  if (name.expands) return false;
  const check = Object.hasOwn(CHECKERS, name.text) ? CHECKERS[name.text] : undefined;
  return check ? check(args) : false;
}

/** Splits a command into words and the operators we accept; undefined for anything refused. */
function tokenize(command: string): Token[] | undefined {
  // Newlines separate commands just like `;`, and a NUL never belongs in a command.
  if (/[\n\r\0]/.test(command)) return undefined;
  const tokens: Token[] = [];
  let text = '';
  let expands = false;
  let inWord = false;
  let braces = false;
  const endWord = (): void => {
    if (inWord) {
      // `{a,b}` and `{1..3}` expand into several words; a lone `{` or `@{u}` does not.
      const brace = braces && (text.includes(',') || text.includes('..'));
      tokens.push({ type: 'word', word: { text, expands: expands || brace } });
    }
    text = '';
    expands = false;
    inWord = false;
    braces = false;
  };

  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === "'") {
      const close = command.indexOf("'", i + 1);
      if (close < 0) return undefined;
      text += command.slice(i + 1, close);
      inWord = true;
      i = close;
    } else if (c === '"') {
      const end = readDoubleQuoted(command, i + 1);
      if (!end) return undefined;
      text += end.text;
      inWord = true;
      i = end.close;
    } else if (c === '\\') {
      if (i + 1 >= command.length) return undefined;
      text += command[++i];
      inWord = true;
    } else if (c === '$') {
      if (!isLiteralDollar(command[i + 1])) return undefined;
      text += c;
      inWord = true;
    } else if (c === '|') {
      endWord();
      if (command[i + 1] === '&') return undefined; // `|&` also pipes stderr; not worth modelling
      const op = command[i + 1] === '|' ? '||' : '|';
      if (op === '||') i++;
      tokens.push({ type: 'op', op });
    } else if (c === '&') {
      // A single `&` runs something in the background; only `&&` is a chain we understand.
      if (command[i + 1] !== '&') return undefined;
      endWord();
      tokens.push({ type: 'op', op: '&&' });
      i++;
    } else if (REFUSED_UNQUOTED.has(c)) {
      return undefined;
    } else if (c === '#' && !inWord) {
      return undefined; // a comment could hide the rest of the line from a reader
    } else {
      if (GLOB_CHARS.has(c)) expands = true;
      if (c === '{') braces = true;
      text += c;
      inWord = true;
    }
  }
  endWord();
  return tokens;
}

/** Reads a double-quoted string starting after its opening quote; undefined when refused. */
function readDoubleQuoted(command: string, start: number): { text: string; close: number } | undefined {
  let text = '';
  for (let i = start; i < command.length; i++) {
    const c = command[i];
    if (c === '"') return { text, close: i };
    if (c === '`') return undefined;
    if (c === '$') {
      if (!isLiteralDollar(command[i + 1])) return undefined;
      text += c;
    } else if (c === '\\' && i + 1 < command.length && '"\\$`'.includes(command[i + 1])) {
      text += command[++i];
    } else {
      text += c;
    }
  }
  return undefined;
}

/**
 * A `$` stays literal only before whitespace, a closing quote or the end (`grep "foo$"`).
 * Everything else is an expansion: `$(…)`, `${…}`, `$VAR` — a variable could even hold `-delete`.
 */
function isLiteralDollar(next: string | undefined): boolean {
  return next === undefined || next === ' ' || next === '\t' || next === '"';
}

type Checker = (args: Word[]) => boolean;

const anyArgs: Checker = () => true;

const FIND_ACTIONS = ['-exec', '-execdir', '-delete', '-ok', '-okdir', '-fprint', '-fprint0', '-fprintf', '-fls'];

/** Long option name without its `=value`. */
const optionName = (arg: string): string => arg.split('=', 1)[0];

/** A short-option cluster such as `-aR` containing `letter`. */
const shortCluster = (arg: string, letter: string): boolean =>
  arg.startsWith('-') && !arg.startsWith('--') && arg.slice(1).includes(letter);

const GIT_READ_SUBCOMMANDS = new Set(['status', 'diff', 'log', 'show', 'branch', 'rev-parse', 'ls-files', 'blame']);
const GIT_BRANCH_LIST_FLAGS = new Set(['-a', '-r', '-v', '-vv', '--all', '--remotes', '--verbose', '--list']);

/** `--output` writes a file from diff, log and show; git also accepts unambiguous prefixes (`--out=`). */
function isGitOutputOption(arg: string): boolean {
  const name = optionName(arg);
  if (name.startsWith('--output-indicator')) return false;
  return name.startsWith('--output') || (name.length > 2 && name.startsWith('--o') && '--output'.startsWith(name));
}

function gitIsReadOnly(args: Word[]): boolean {
  // Global options before the subcommand (`-c core.pager=…`, `-C dir`) are refused outright.
  const [sub, ...rest] = args;
  if (!sub || !GIT_READ_SUBCOMMANDS.has(sub.text)) return false;
  if (args.some((a) => a.expands)) return false;
  if (rest.some((a) => isGitOutputOption(a.text))) return false;
  // `git branch name` creates a branch, `-d`/`-m` delete and rename: only listing flags pass.
  if (sub.text === 'branch') return rest.every((a) => GIT_BRANCH_LIST_FLAGS.has(a.text));
  return true;
}

/** The commands we know, each with a check of its arguments. */
const CHECKERS: Record<string, Checker> = {
  ls: anyArgs,
  pwd: anyArgs,
  cat: anyArgs,
  head: anyArgs,
  tail: anyArgs,
  wc: anyArgs,
  echo: anyArgs,
  grep: anyArgs,
  which: anyArgs,
  stat: anyArgs,
  du: anyArgs,
  df: anyArgs,
  // `--pre=cmd` runs a program on every searched file.
  rg: (args) => args.every((a) => !a.expands && !optionName(a.text).startsWith('--pre')),
  find: (args) => args.every((a) => !a.expands && !FIND_ACTIONS.some((action) => a.text.startsWith(action))),
  // `-o file` writes the listing to a file; `-R` writes 00Tree.html into every directory.
  tree: (args) =>
    args.every(
      (a) => !a.expands && !shortCluster(a.text, 'o') && !shortCluster(a.text, 'R') && !a.text.startsWith('--o'),
    ),
  // `-C` / `--compile` writes a compiled magic file.
  file: (args) => args.every((a) => !a.expands && !shortCluster(a.text, 'C') && !a.text.startsWith('--c')),
  git: gitIsReadOnly,
};
