import { describe, expect, it } from 'vitest';
import { type LineEdit, editLine, emptyLine } from '../../../src/ui/state/line-editor.js';

const apply = (...edits: LineEdit[]) => edits.reduce(editLine, emptyLine);

describe('editLine', () => {
  it('inserts at the cursor and moves it past the insertion', () => {
    expect(
      apply(
        { type: 'insert', text: 'wrld' },
        { type: 'left' },
        { type: 'left' },
        { type: 'left' },
        { type: 'insert', text: 'o' },
      ),
    ).toEqual({
      text: 'world',
      cursor: 2,
    });
  });

  it('deletes before the cursor and does nothing at the start', () => {
    const state = apply({ type: 'insert', text: 'abc' }, { type: 'home' }, { type: 'backspace' });
    expect(state).toEqual({ text: 'abc', cursor: 0 });
    expect(apply({ type: 'insert', text: 'abc' }, { type: 'left' }, { type: 'backspace' })).toEqual({ text: 'ac', cursor: 1 });
  });

  it('keeps the cursor inside the text and treats an emoji as one step', () => {
    expect(apply({ type: 'insert', text: 'a😀b' }, { type: 'right' }, { type: 'left' }, { type: 'backspace' })).toEqual({
      text: 'ab',
      cursor: 1,
    });
    expect(apply({ type: 'home' }, { type: 'left' }).cursor).toBe(0);
    expect(apply({ type: 'insert', text: 'ab' }, { type: 'home' }, { type: 'end' }, { type: 'right' }).cursor).toBe(2);
  });

  it('turns line breaks and tabs of a paste into spaces and drops control characters', () => {
    expect(apply({ type: 'insert', text: 'one\r\ntwo\tthree\u0007' }).text).toBe('one two three');
    const state = apply({ type: 'insert', text: 'x' });
    expect(editLine(state, { type: 'insert', text: '\u0001' })).toBe(state);
  });

  it('replaces the whole line with set, cursor at the end', () => {
    expect(apply({ type: 'insert', text: 'old' }, { type: 'set', text: 'new text' })).toEqual({ text: 'new text', cursor: 8 });
  });
});
