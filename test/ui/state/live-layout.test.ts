import { describe, expect, it } from 'vitest';
import { type LiveWants, liveBudget } from '../../../src/ui/state/live-layout.js';
import { inputLines, visibleInputLines } from '../../../src/ui/state/input-view.js';

const wants = (over: Partial<LiveWants>): LiveWants => ({
  height: 40,
  bottom: 3,
  approval: 0,
  working: 0,
  todos: 0,
  rows: 0,
  tools: 0,
  text: 0,
  ...over,
});
const total = (b: ReturnType<typeof liveBudget>) =>
  b.footer + b.bottom + b.approval + b.working + b.status + b.todos + b.rows + b.tools + b.text;

describe('the live area budget', () => {
  it('gives every part what it wants when the screen is tall enough', () => {
    expect(liveBudget(wants({ working: 1, todos: 3, rows: 3, tools: 2, text: 5 }))).toEqual({
      footer: 2,
      bottom: 3,
      approval: 0,
      working: 1,
      status: 0,
      todos: 3,
      rows: 3,
      rowsShown: 3,
      tools: 2,
      text: 5,
    });
  });

  it('gives the plan at most a third of what is left, so the rows keep room', () => {
    const b = liveBudget(wants({ height: 14, working: 1, todos: 8, rows: 8 }));
    expect(total(b)).toBe(13);
    expect(b.todos).toBe(2);
    expect(b).toMatchObject({ rows: 5, rowsShown: 4 });
  });

  it('never reaches the screen height: rows collapse first, text and tools keep a little room', () => {
    const b = liveBudget(wants({ height: 14, working: 1, rows: 8 }));
    expect(total(b)).toBe(13);
    expect(b).toMatchObject({ rows: 7, rowsShown: 6 });
    const streaming = liveBudget(wants({ height: 14, rows: 8, text: 30, tools: 2 }));
    expect(total(streaming)).toBe(13);
    expect(streaming.rows).toBe(4);
    expect(streaming.tools + streaming.text).toBe(4);
  });

  it('keeps the footer and the input on a tiny screen, and shows no rows rather than a half', () => {
    const b = liveBudget(wants({ height: 6, approval: 5, rows: 4, text: 3 }));
    expect(total(b)).toBe(5);
    expect(b).toMatchObject({ footer: 2, bottom: 3, approval: 0, rows: 0 });
  });

  it('gives a configured status line its line after the input, the approval and the working line', () => {
    expect(liveBudget(wants({ status: 1, rows: 3 }))).toMatchObject({ status: 1, rows: 3 });
    // On a short screen it gives way before the input and an approval, and before rows take its place.
    const short = liveBudget(wants({ height: 7, status: 1, approval: 1, working: 1, rows: 3 }));
    expect(short).toMatchObject({ footer: 2, bottom: 3, approval: 1, working: 0, status: 0, rows: 0 });
    expect(total(short)).toBe(6);
    const tight = liveBudget(wants({ height: 8, status: 1, working: 1, rows: 3 }));
    expect(tight).toMatchObject({ working: 1, status: 1, rows: 0 });
  });

  it('caps streamed text even on a tall screen, and has no limit when the height is unknown', () => {
    expect(liveBudget(wants({ text: 100 })).text).toBe(12);
    expect(liveBudget(wants({ height: Infinity, rows: 500 })).rows).toBe(500);
  });
});

describe('the input as screen lines', () => {
  it('keeps line breaks, breaks long lines by cells and places the cursor', () => {
    expect(inputLines('ab\ncd', 4, 10)).toEqual([{ text: 'ab' }, { text: 'cd', cursor: 1 }]);
    expect(inputLines('abcdefgh', 5, 4)).toEqual([{ text: 'abcd' }, { text: 'efgh', cursor: 1 }]);
    // The cursor after a full line gets a line of its own.
    expect(inputLines('abcd', 4, 4)).toEqual([{ text: 'abcd' }, { text: '', cursor: 0 }]);
    expect(inputLines('', 0, 4)).toEqual([{ text: '', cursor: 0 }]);
  });

  it('shows a window around the cursor when the input is taller than its room', () => {
    const lines = inputLines('1\n2\n3\n4\n5', 3, 10);
    const window = visibleInputLines(lines, 2);
    expect(window.lines.map((l) => l.text)).toEqual(['1', '2']);
    expect(visibleInputLines(inputLines('1\n2\n3\n4\n5', 9, 10), 2)).toMatchObject({ above: 3, below: 0 });
  });
});
