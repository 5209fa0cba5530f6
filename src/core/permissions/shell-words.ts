/**
 * A small bash tokenizer for the read-only check: it splits a command into simple commands and
 * their words exactly as bash would, or refuses. Anything it does not fully understand —
 * expansions, `$"…"`, `$'…'` with escapes, brace expansion, odd tilde forms, redirections,
 * subshells, control characters — is refused, which only means the user gets asked.
 */

/** One shell word after quote removal. */
export interface Word {
  text: string;
  /** Unquoted glob characters or a leading `~`: bash may turn it into other text. */
  expands: boolean;
}

/** The operators that join simple commands we accept. */
type Operator = '|' | '&&' | '||';

/** One character of a word and whether quoting protected it. */
interface Char {
  c: string;
  quoted: boolean;
}

/** Characters that end an unquoted word or start a construct we refuse. */
const REFUSED_UNQUOTED = new Set([';', '<', '>', '(', ')', '`']);
const GLOB_CHARS = new Set(['*', '?', '[']);

/**
 * Splits `command` into simple commands (joined by `|`, `&&`, `||`) made of words;
 * undefined when it holds anything this tokenizer refuses.
 */
export function splitCommands(command: string): Word[][] | undefined {
  const tokens = tokenize(command);
  if (!tokens || tokens.length === 0) return undefined;
  const commands: Word[][] = [[]];
  for (const token of tokens) {
    if (typeof token === 'string') commands.push([]);
    else commands[commands.length - 1].push(token);
  }
  return commands;
}

function tokenize(command: string): (Word | Operator)[] | undefined {
  // Newlines separate commands like `;`; NUL and other control characters have odd meanings
  // inside bash (it uses \x01 and \x7f as internal quoting marks), so they never pass.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (/[\0-\x08\n-\x1f\x7f]/.test(command)) return undefined;
  const tokens: (Word | Operator)[] = [];
  let chars: Char[] = [];
  let inWord = false;
  const endWord = (): boolean => {
    if (inWord) {
      const word = toWord(chars);
      if (!word) return false;
      tokens.push(word);
    }
    chars = [];
    inWord = false;
    return true;
  };
  const add = (text: string, quoted: boolean): void => {
    for (const c of text) chars.push({ c, quoted });
    inWord = true;
  };

  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    const next = command[i + 1];
    if (c === ' ' || c === '\t') {
      if (!endWord()) return undefined;
    } else if (c === "'") {
      const close = command.indexOf("'", i + 1);
      if (close < 0) return undefined;
      add(command.slice(i + 1, close), true);
      i = close;
    } else if (c === '"') {
      const end = readDoubleQuoted(command, i + 1);
      if (!end) return undefined;
      add(end.text, true);
      i = end.close;
    } else if (c === '\\') {
      if (next === undefined) return undefined;
      add(next, true);
      i++;
    } else if (c === '$') {
      if (next === "'") {
        // ANSI-C quoting: understood only without escapes, where it equals '…'.
        const close = command.indexOf("'", i + 2);
        if (close < 0) return undefined;
        const body = command.slice(i + 2, close);
        if (body.includes('\\')) return undefined;
        add(body, true);
        i = close;
      } else if (next === undefined || next === ' ' || next === '\t') {
        add(c, true); // a `$` before a word break stays literal: `grep foo$ file`
      } else {
        // `$"…"` (translated: bash drops the `$`), `$(…)`, `${…}`, `$VAR`, `$-`, `$?`, …
        return undefined;
      }
    } else if (c === '|') {
      if (!endWord()) return undefined;
      if (next === '&') return undefined; // `|&` also pipes stderr; not worth modelling
      if (next === '|') i++;
      tokens.push(next === '|' ? '||' : '|');
    } else if (c === '&') {
      // A single `&` runs something in the background; only `&&` is a chain we understand.
      if (next !== '&' || !endWord()) return undefined;
      tokens.push('&&');
      i++;
    } else if (REFUSED_UNQUOTED.has(c)) {
      return undefined;
    } else if (c === '#' && !inWord) {
      return undefined; // a comment could hide the rest of the line from a reader
    } else {
      add(c, false);
    }
  }
  return endWord() ? tokens : undefined;
}

/** Reads a double-quoted string starting after its opening quote; undefined when refused. */
function readDoubleQuoted(command: string, start: number): { text: string; close: number } | undefined {
  let text = '';
  for (let i = start; i < command.length; i++) {
    const c = command[i];
    const next = command[i + 1];
    if (c === '"') return { text, close: i };
    if (c === '`') return undefined;
    if (c === '$') {
      // Inside double quotes only `$` before the closing quote or a blank is literal: `"foo$"`.
      if (next !== '"' && next !== ' ' && next !== '\t') return undefined;
      text += c;
    } else if (c === '\\' && next !== undefined && '"\\$`'.includes(next)) {
      text += next;
      i++;
    } else {
      text += c;
    }
  }
  return undefined;
}

/** Builds a word from its characters; undefined when bash would expand it in a way we refuse. */
function toWord(chars: Char[]): Word | undefined {
  const tilde = tildeExpansion(chars);
  if (tilde === 'refused' || mayBraceExpand(chars)) return undefined;
  const text = chars.map((ch) => ch.c).join('');
  const globs = chars.some((ch) => !ch.quoted && GLOB_CHARS.has(ch.c));
  return { text, expands: globs || tilde === 'home' };
}

/**
 * `{a,b}`, `{1..3}` and nestings of them become several words (`-de{l,}ete` is `-delete`).
 * Conservative: an unquoted `{` … `}` pair with any `,` or `..` between the first `{` and the
 * last `}` counts, quoted or not; `@{u}` and `HEAD@{1}` do not.
 */
function mayBraceExpand(chars: Char[]): boolean {
  const open = chars.findIndex((ch) => !ch.quoted && ch.c === '{');
  if (open < 0) return false;
  let close = -1;
  for (let i = chars.length - 1; i > open; i--) {
    if (!chars[i].quoted && chars[i].c === '}') {
      close = i;
      break;
    }
  }
  if (close < 0) return false;
  const between = chars
    .slice(open + 1, close)
    .map((ch) => ch.c)
    .join('');
  return between.includes(',') || between.includes('..');
}

/**
 * An unquoted `~` at the start of a word, or after `=` or `:` (bash expands those in words
 * that look like assignments), is `$HOME` only when a `/`, `:` or the end follows. `~+`, `~-`,
 * `~user` and `~1` expand to other directories (`~-` is whatever $OLDPWD holds): refused.
 */
function tildeExpansion(chars: Char[]): 'none' | 'home' | 'refused' {
  let found: 'none' | 'home' = 'none';
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (ch.quoted || ch.c !== '~') continue;
    const before = chars[i - 1];
    if (i > 0 && (before.quoted || (before.c !== '=' && before.c !== ':'))) continue;
    const after = chars[i + 1];
    if (after !== undefined && (after.quoted || (after.c !== '/' && after.c !== ':'))) return 'refused';
    found = 'home';
  }
  return found;
}
