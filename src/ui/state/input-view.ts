import { charCells } from '../text-cells.js';

/** One screen line of the input: its text, and where the cursor sits on it (if it does). */
export interface InputLine {
  text: string;
  /** Code-point index of the cursor within `text`; its length in code points puts it past the end. */
  cursor?: number;
}

/**
 * The input's text as screen lines of at most `width` cells: its own line breaks kept, long
 * lines broken by cells (so the cursor maps simply). A cursor at the end of a full line gets
 * a line of its own, so its block never spills past the width.
 */
export function inputLines(text: string, cursor: number, width: number): InputLine[] {
  const limit = Math.max(1, width);
  const lines: InputLine[] = [];
  let offset = 0;
  for (const logical of text.split('\n')) {
    const chars = Array.from(logical);
    // Segments [start, end) of at most `limit` cells.
    const segments: [number, number][] = [];
    let start = 0;
    let used = 0;
    chars.forEach((char, i) => {
      const w = charCells(char);
      if (used + w > limit && i > start) {
        segments.push([start, i]);
        start = i;
        used = 0;
      }
      used += w;
    });
    segments.push([start, chars.length]);
    const at = cursor - offset;
    if (used >= limit && chars.length > 0 && at === chars.length) segments.push([chars.length, chars.length]);
    segments.forEach(([s, e], i) => {
      const line: InputLine = { text: chars.slice(s, e).join('') };
      const last = i === segments.length - 1;
      if (at >= s && (at < e || (last && at === e))) line.cursor = at - s;
      lines.push(line);
    });
    offset += chars.length + 1;
  }
  return lines;
}

/** The lines to show when the input is taller than `max`: a window that keeps the cursor in view. */
export function visibleInputLines(lines: InputLine[], max: number): { lines: InputLine[]; above: number; below: number } {
  const room = Math.max(1, max);
  if (lines.length <= room) return { lines, above: 0, below: 0 };
  const at = Math.max(
    0,
    lines.findIndex((line) => line.cursor !== undefined),
  );
  const start = Math.min(Math.max(0, at - room + 1), lines.length - room);
  return { lines: lines.slice(start, start + room), above: start, below: lines.length - start - room };
}
