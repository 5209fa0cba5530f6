/**
 * The first line of a command's output as a terminal may be given it: colours and styles (SGR,
 * `ESC[…m`) kept, every other escape sequence (cursor moves, screen clears, OSC titles and links,
 * DCS, a terminal reset) and control character taken out, invisible format characters (bidi
 * overrides) dropped, and at most `maxChars` characters. What reaches the screen can style text
 * and nothing more: it cannot move the cursor, redraw the app or talk to the terminal.
 */

const ESC = 0x1b;
const BEL = 0x07;
/** C1 controls (8-bit): CSI, the string introducers, ST. */
const C1_CSI = 0x9b;
const C1_ST = 0x9c;
const C1_STRINGS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
/** After ESC: the sequences that carry a string up to ST (DCS, SOS, OSC, PM, APC). */
const STRING_INTRODUCERS = new Set(['P', 'X', ']', '^', '_']);
/** An SGR's parameters: digits and separators, and not too many of them. */
const SGR_PARAMS = /^[0-9;:]{0,48}$/;
/** Characters that end the first line. */
const LINE_ENDS = new Set(['\n', '\r', '\u0085', '\u2028', '\u2029']);
/** Format characters (bidi overrides, zero-width marks); the zero-width joiner stays, emoji need it. */
const FORMAT = /^\p{Cf}$/u;
const ZWJ = '\u200d';
const RESET = '\u001b[0m';

/** The first line of `text`, safe to draw, at most `maxChars` characters; styles are reset at its end. */
export function terminalLine(text: string, options: { maxChars?: number; keepStyle?: boolean } = {}): string {
  const maxChars = options.maxChars ?? 1000;
  const keepStyle = options.keepStyle ?? true;
  let out = '';
  let shown = 0;
  let styled = false;
  let i = 0;
  while (i < text.length && shown < maxChars) {
    const code = text.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    if (LINE_ENDS.has(char)) break;
    if (code === ESC) {
      const end = escapeEnd(text, i);
      const sequence = text.slice(i, end);
      if (keepStyle && isSgr(sequence)) {
        out += sequence;
        styled = true;
      }
      i = end;
      continue;
    }
    if (code === C1_CSI) {
      i = csiEnd(text, i + 1);
      continue;
    }
    if (C1_STRINGS.has(code)) {
      i = stringEnd(text, i + 1);
      continue;
    }
    i += char.length;
    if (char === '\t') {
      out += ' ';
      shown += 1;
    } else if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || isSurrogate(code) || (FORMAT.test(char) && char !== ZWJ)) {
      continue;
    } else {
      out += char;
      shown += 1;
    }
  }
  return styled ? `${out}${RESET}` : out;
}

function isSgr(sequence: string): boolean {
  return sequence.startsWith('\u001b[') && sequence.endsWith('m') && SGR_PARAMS.test(sequence.slice(2, -1));
}

/** Where the escape sequence starting at `start` (an ESC) ends; an unfinished one runs to the end. */
function escapeEnd(text: string, start: number): number {
  const next = text[start + 1];
  if (next === undefined) return text.length;
  if (next === '[') return csiEnd(text, start + 2);
  if (STRING_INTRODUCERS.has(next)) return stringEnd(text, start + 2);
  // ESC, intermediates (0x20–0x2F), a final (0x30–0x7E): `ESC c` (reset), `ESC 7`, `ESC ( B`.
  let i = start + 1;
  while (i < text.length && inRange(text, i, 0x20, 0x2f)) i += 1;
  return i < text.length && inRange(text, i, 0x30, 0x7e) ? i + 1 : i;
}

/** A CSI's parameters (0x30–0x3F), intermediates (0x20–0x2F) and final (0x40–0x7E); stops short at anything else. */
function csiEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && inRange(text, i, 0x30, 0x3f)) i += 1;
  while (i < text.length && inRange(text, i, 0x20, 0x2f)) i += 1;
  return i < text.length && inRange(text, i, 0x40, 0x7e) ? i + 1 : i;
}

/** A string sequence runs to BEL, ESC \ or ST (all of it dropped, its line breaks too); unterminated, to the end. */
function stringEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === BEL || code === C1_ST) return i + 1;
    if (code === ESC && text[i + 1] === '\\') return i + 2;
  }
  return text.length;
}

/** Half of a pair on its own: not a character. */
function isSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdfff;
}

function inRange(text: string, i: number, low: number, high: number): boolean {
  const code = text.charCodeAt(i);
  return code >= low && code <= high;
}
