/**
 * Terminal cells: how wide text is on screen, and cutting or wrapping it to a width. The
 * live area's height is counted from these lines, so each must fit the width exactly.
 */

/** Code points that take two cells: CJK, Hangul, full-width forms, most emoji. */
function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0x303e) ||
    (code >= 0x3041 && code <= 0x33ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xa000 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

/** Combining marks, zero-width joiners and variation selectors take no cell. */
function isZeroWidth(code: number): boolean {
  return (
    (code >= 0x0300 && code <= 0x036f) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    code === 0x2060 ||
    code === 0xfeff
  );
}

/** Cells one character takes. */
export function charCells(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || isZeroWidth(code)) return 0;
  return isWide(code) ? 2 : 1;
}

/** Cells a line of text takes (no escape sequences expected). */
export function cells(text: string): number {
  let n = 0;
  for (const char of text) n += charCells(char);
  return n;
}

/** Cuts `text` to at most `width` cells, ending with `…` when it was cut; never splits a character. */
export function cutCells(text: string, width: number): string {
  if (width <= 0) return '';
  if (cells(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const w = charCells(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}

/**
 * Wraps text into lines of at most `width` cells: at spaces where it can, inside a word
 * when a word alone is too long. Existing line breaks are kept; tabs count as two spaces.
 */
export function wrapCells(text: string, width: number): string[] {
  const limit = Math.max(1, width);
  const out: string[] = [];
  for (const raw of text.replace(/\t/g, '  ').split('\n')) {
    if (raw === '') {
      out.push('');
      continue;
    }
    let line = '';
    let used = 0;
    for (const word of raw.split(/(?<= )/)) {
      const w = cells(word);
      if (used + w <= limit) {
        line += word;
        used += w;
        continue;
      }
      if (used > 0 && cells(word.trimEnd()) <= limit) {
        out.push(line.trimEnd());
        line = word;
        used = w;
        continue;
      }
      // A word longer than the line: break it where the line ends.
      for (const char of word) {
        const cw = charCells(char);
        if (used + cw > limit && used > 0) {
          out.push(line.trimEnd());
          line = '';
          used = 0;
        }
        line += char;
        used += cw;
      }
    }
    out.push(line.trimEnd());
  }
  return out;
}

/**
 * Wraps one line of a listing (`  /agents [id]   open the sub-agents …`) with a hanging indent:
 * the rows after the first start under its description (the text after the first run of two or
 * more spaces), or under its own indent when that column is past half the width.
 */
export function hangingWrap(line: string, width: number): string[] {
  if (cells(line) <= width) return [line];
  const lead = /^ */.exec(line)![0].length;
  const column = /^ *\S.*?\S {2,}(?=\S)/.exec(line)?.[0];
  const indent = column && cells(column) <= width / 2 ? cells(column) : Math.min(lead + 2, Math.floor(width / 2));
  const head = column && cells(column) === indent ? column : line.slice(0, Math.min(lead, indent));
  const body = line.slice(head.length);
  const [first = '', ...rest] = wrapCells(body, Math.max(1, width - indent));
  return [`${head}${first}`, ...rest.map((row) => `${' '.repeat(indent)}${row}`)];
}

/** Ink wraps a Text keeping the space it broke at as the next row's first cell; this drops it (a row's transform, after any colour codes). */
export function dropWrapSpace(row: string, index: number): string {
  // eslint-disable-next-line no-control-regex
  return index === 0 ? row : row.replace(/^((?:\u001B\[[\d;]*m)*) /, '$1');
}
