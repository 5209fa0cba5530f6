/**
 * Narrow text: characters each one cell wide and a grapheme of their own beside any other (no
 * controls, marks, joiners, wide or emoji characters). What Ink's width and tokenizer
 * libraries work out grapheme by grapheme, this knows of such text from its characters
 * alone; the shims beside it (see scripts/build.mjs) use it to skip that work, and
 * test/ui/ink-shims/narrow-text.test.ts holds every character listed here against them.
 */

/** Ranges of narrow characters (inclusive, all in the BMP), sorted. */
export const NARROW_RANGES: readonly (readonly [number, number])[] = [
  [0x20, 0x7e],
  [0xa0, 0xac],
  // Not U+00AD, the soft hyphen (no cell).
  [0xae, 0x2ff],
  // Cyrillic, but not its combining marks (U+0483–U+0489).
  [0x400, 0x482],
  [0x48a, 0x52f],
  // Dashes, quotes, bullets, `…`; not the line separators and bidi controls (U+2028–U+202E).
  [0x2010, 0x2027],
  [0x2030, 0x205e],
  [0x20a0, 0x20bf],
  [0x2100, 0x218b],
  // Arrows, mathematical operators, technical symbols (`⎿`, `⏎`), but not the wide ones.
  [0x2190, 0x2319],
  [0x231c, 0x2328],
  [0x232b, 0x23e8],
  [0x23ed, 0x23ef],
  [0x23f1, 0x23f2],
  [0x23f4, 0x23ff],
  [0x2400, 0x2426],
  [0x2460, 0x24ff],
  // Box drawing, blocks and geometric shapes (`─`, `│`, `●`, `■`, `▸`), but not ◽ ◾.
  [0x2500, 0x25fc],
  [0x25ff, 0x2613],
  // Miscellaneous symbols and dingbats (`☐`, `☑`, `✓`, `✗`) between the wide emoji.
  [0x2616, 0x262f],
  [0x2638, 0x2647],
  [0x2654, 0x267e],
  [0x2680, 0x2689],
  [0x2690, 0x2692],
  [0x2694, 0x26a0],
  [0x26a2, 0x26a9],
  [0x26ac, 0x26bc],
  [0x26bf, 0x26c3],
  [0x26c6, 0x26cd],
  [0x26cf, 0x26d3],
  [0x26d5, 0x26e9],
  [0x26eb, 0x26f1],
  [0x26f4, 0x26f4],
  [0x26f6, 0x26f9],
  [0x26fb, 0x26fc],
  [0x26fe, 0x2704],
  [0x2706, 0x2709],
  [0x270c, 0x2727],
  [0x2729, 0x274b],
  [0x274d, 0x274d],
  [0x274f, 0x2752],
  [0x2756, 0x2756],
  [0x2758, 0x2794],
  [0x2798, 0x27af],
  [0x27b1, 0x27be],
  // Arrows, Braille (the spinner's `⠙`), mathematical symbols.
  [0x27c0, 0x2b1a],
  [0x2b1d, 0x2b4f],
  [0x2b51, 0x2b54],
  [0x2b56, 0x2b73],
];

/** Whether one UTF-16 code unit is a narrow character (a surrogate never is). */
export function isNarrow(code: number): boolean {
  if (code >= 0x20 && code <= 0x7e) return true;
  let low = 0;
  let high = NARROW_RANGES.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [start, end] = NARROW_RANGES[middle]!;
    if (code < start) high = middle - 1;
    else if (code > end) low = middle + 1;
    else return true;
  }
  return false;
}

/**
 * Where the SGR sequence (a colour code: `ESC[`, digits and semicolons, `m`) that starts at `at`
 * ends (the index after its `m`); -1 when none starts there. Both libraries read exactly these
 * as one code: string-width strips it, the tokenizer makes it style tokens.
 */
export function sgrEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== 0x1b || text.charCodeAt(at + 1) !== 0x5b) return -1;
  for (let i = at + 2; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 0x6d) return i + 1;
    if (code !== 0x3b && (code < 0x30 || code > 0x39)) return -1;
  }
  return -1;
}

/** The cells narrow text takes, its colour codes set aside; undefined when it holds anything else. */
export function narrowWidth(text: string): number | undefined {
  let width = 0;
  for (let i = 0; i < text.length;) {
    if (text.charCodeAt(i) === 0x1b) {
      const end = sgrEnd(text, i);
      if (end === -1) return undefined;
      i = end;
      continue;
    }
    if (!isNarrow(text.charCodeAt(i))) return undefined;
    width += 1;
    i += 1;
  }
  return width;
}
