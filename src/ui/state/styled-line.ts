import { charCells } from '../text-cells.js';

/** An SGR sequence: the only escape sequence a status line keeps (core/platform/terminal-line.ts). */
// eslint-disable-next-line no-control-regex -- the escape character is what is matched
const SGR = /\u001b\[[0-9;:]*m/y;
const RESET = '\u001b[0m';

/** Cells a styled line takes: its styles take none. */
export function styledCells(line: string): number {
  return cutStyledAt(line, Number.MAX_SAFE_INTEGER).used;
}

/**
 * Cuts a line that may hold SGR styles to at most `width` cells, ending with `…` when it was
 * cut; the styles stay (they take no cell), and are reset at the cut so none reaches past it.
 */
export function cutStyled(line: string, width: number): string {
  if (width <= 0) return '';
  if (styledCells(line) <= width) return line;
  const { text, styled } = cutStyledAt(line, width - 1);
  return `${text}…${styled ? RESET : ''}`;
}

function cutStyledAt(line: string, width: number): { text: string; used: number; styled: boolean } {
  let text = '';
  let used = 0;
  let styled = false;
  let i = 0;
  while (i < line.length) {
    SGR.lastIndex = i;
    const match = SGR.exec(line);
    if (match) {
      text += match[0];
      styled = true;
      i += match[0].length;
      continue;
    }
    const char = String.fromCodePoint(line.codePointAt(i)!);
    const w = charCells(char);
    if (used + w > width) break;
    text += char;
    used += w;
    i += char.length;
  }
  return { text, used, styled };
}
