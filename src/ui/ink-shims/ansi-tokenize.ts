/**
 * `@alcalzone/ansi-tokenize` as the bundle gives it to Ink's output (scripts/build.mjs). Each
 * frame, Ink splits every line it writes into styled characters and joins the screen's grid
 * back into a string. The library segments each line into graphemes, and between any two cells
 * of the grid diffs their styles with three new Sets (and a fourth to print the diff), even when
 * neither has a style: with 50 sub-agents streaming that was most of the TUI's garbage and a
 * third of its CPU. Here narrow text (colour codes and all) is split by its characters, and
 * cells whose styles match add no code, which is what the library would find for both;
 * everything else goes to the library itself.
 */
import {
  type AnsiCode,
  type StyledChar,
  type Token,
  ansiCodesToString,
  diffAnsiCodes,
  reduceAnsiCodesIncremental,
  tokenize as tokenizeOf,
} from '@alcalzone/ansi-tokenize';
import { isNarrow, sgrEnd } from './narrow-text.js';

export * from '@alcalzone/ansi-tokenize';

/**
 * The tokens of narrow text: one character token each, none full width, and each colour code
 * as the library tokenizes it. Undefined when the text holds anything else.
 */
function narrowTokens(text: string): Token[] | undefined {
  const tokens: Token[] = [];
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    if (code === 0x1b) {
      const end = sgrEnd(text, i);
      if (end === -1) return undefined;
      for (const token of tokenizeOf(text.slice(i, end))) tokens.push(token);
      i = end;
      continue;
    }
    if (!isNarrow(code)) return undefined;
    tokens.push({ type: 'char', value: text[i]!, fullWidth: false });
    i += 1;
  }
  return tokens;
}

/** The library's tokens, found without it for narrow text (colour codes and all). */
export function tokenize(text: string, endChar?: number): Token[] {
  const whole = endChar === undefined || endChar === Number.POSITIVE_INFINITY;
  return (whole ? narrowTokens(text) : undefined) ?? tokenizeOf(text, endChar);
}

/**
 * Characters with the styles in force at each, each with its own copy of them: the library's
 * result, built without its spread of every token (which V8 takes on a slow path).
 */
export function styledCharsFromTokens(tokens: Token[]): StyledChar[] {
  const chars: StyledChar[] = [];
  let codes: AnsiCode[] = [];
  for (const token of tokens) {
    if (token.type === 'ansi') codes = reduceAnsiCodesIncremental(codes, [token]);
    else chars.push({ type: 'char', value: token.value, fullWidth: token.fullWidth, styles: [...codes] });
  }
  return chars;
}

/** Whether two cells have the same styles, code for code: the diff between them is then empty. */
function sameStyles(a: readonly AnsiCode[], b: readonly AnsiCode[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    if (a[i]!.code !== b[i]!.code || a[i]!.endCode !== b[i]!.endCode) return false;
  }
  return true;
}

/** The characters as a string, each style turned on and off where it changes (the library's own codes). */
export function styledCharsToString(chars: StyledChar[]): string {
  let text = '';
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i]!;
    if (i === 0) {
      if (char.styles.length > 0) text += ansiCodesToString(char.styles);
    } else {
      const before = chars[i - 1]!.styles;
      if (!sameStyles(before, char.styles)) text += ansiCodesToString(diffAnsiCodes(before, char.styles));
    }
    text += char.value;
    // Styles still on at the end are turned off.
    if (i === chars.length - 1 && char.styles.length > 0) text += ansiCodesToString(diffAnsiCodes(char.styles, []));
  }
  return text;
}
