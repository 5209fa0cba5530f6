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

  it('keeps the line breaks of a paste, turns tabs into spaces and drops control characters', () => {
    expect(apply({ type: 'insert', text: 'one\r\ntwo\rthree\tfour\u0007' }).text).toBe('one\ntwo\nthree  four');
    const state = apply({ type: 'insert', text: 'x' });
    expect(editLine(state, { type: 'insert', text: '\u0001' })).toBe(state);
  });

  it('replaces the whole line with set, cursor at the end', () => {
    expect(apply({ type: 'insert', text: 'old' }, { type: 'set', text: 'new text' })).toEqual({ text: 'new text', cursor: 8 });
  });

  it('edits several lines: new lines, up and down keeping the column, start and end of the line', () => {
    let state = apply({ type: 'insert', text: 'first line' }, { type: 'newline' }, { type: 'insert', text: 'second' });
    expect(state).toEqual({ text: 'first line\nsecond', cursor: 17 });
    state = editLine(state, { type: 'up' });
    expect(state.cursor).toBe(6);
    state = editLine(editLine(state, { type: 'end' }), { type: 'down' });
    expect(state.cursor).toBe(17);
    expect(editLine(state, { type: 'home' }).cursor).toBe(11);
    expect(editLine(editLine(state, { type: 'home' }), { type: 'up' }).cursor).toBe(0);
  });

  it('moves and deletes by words, and kills to either end of the line (Ctrl+W, Ctrl+U, Ctrl+K)', () => {
    const state = apply({ type: 'insert', text: 'git commit --amend now' });
    expect(editLine(state, { type: 'wordLeft' }).cursor).toBe(19);
    expect(
      apply({ type: 'insert', text: 'git commit --amend' }, { type: 'home' }, { type: 'wordRight' }, { type: 'wordRight' })
        .cursor,
    ).toBe(10);
    expect(editLine(state, { type: 'deleteWord' }).text).toBe('git commit --amend ');
    const middle = apply({ type: 'insert', text: 'a\nhello world\nz' }, { type: 'up' }, { type: 'wordRight' });
    expect(editLine(middle, { type: 'killToStart' })).toEqual({ text: 'a\n world\nz', cursor: 2 });
    expect(editLine(middle, { type: 'killToEnd' })).toEqual({ text: 'a\nhello\nz', cursor: 7 });
    expect(editLine(middle, { type: 'delete' }).text).toBe('a\nhelloworld\nz');
  });
});
