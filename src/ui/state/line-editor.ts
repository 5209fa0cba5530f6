/** The input: its text (line breaks allowed) and the cursor (an index into the text's code points). */
export interface LineState {
  text: string;
  cursor: number;
}

export const emptyLine: LineState = { text: '', cursor: 0 };

export type LineEdit =
  | { type: 'insert'; text: string }
  | { type: 'newline' }
  | { type: 'backspace' }
  /** Forward delete. */
  | { type: 'delete' }
  | { type: 'left' }
  | { type: 'right' }
  | { type: 'wordLeft' }
  | { type: 'wordRight' }
  /** The line above or below, keeping the column where it can. */
  | { type: 'up' }
  | { type: 'down' }
  /** Start and end of the current line (Ctrl+A, Ctrl+E). */
  | { type: 'home' }
  | { type: 'end' }
  /** Ctrl+W: the word before the cursor. */
  | { type: 'deleteWord' }
  /** Ctrl+U: from the start of the line to the cursor. */
  | { type: 'killToStart' }
  /** Ctrl+K: from the cursor to the end of the line. */
  | { type: 'killToEnd' }
  | { type: 'set'; text: string; cursor?: number };

/** Applies one edit; works on code points so an emoji is one step. */
export function editLine(state: LineState, edit: LineEdit): LineState {
  const chars = Array.from(state.text);
  const cursor = Math.min(Math.max(0, state.cursor), chars.length);
  const at = (c: number): LineState => (c === cursor && c === state.cursor ? state : { text: state.text, cursor: c });
  const cut = (from: number, to: number): LineState =>
    from === to ? state : { text: [...chars.slice(0, from), ...chars.slice(to)].join(''), cursor: from };
  switch (edit.type) {
    case 'insert': {
      const inserted = Array.from(printable(edit.text));
      if (inserted.length === 0) return state;
      chars.splice(cursor, 0, ...inserted);
      return { text: chars.join(''), cursor: cursor + inserted.length };
    }
    case 'newline':
      chars.splice(cursor, 0, '\n');
      return { text: chars.join(''), cursor: cursor + 1 };
    case 'backspace':
      return cursor === 0 ? state : cut(cursor - 1, cursor);
    case 'delete':
      return cursor >= chars.length ? state : cut(cursor, cursor + 1);
    case 'left':
      return at(Math.max(0, cursor - 1));
    case 'right':
      return at(Math.min(chars.length, cursor + 1));
    case 'wordLeft':
      return at(wordStart(chars, cursor));
    case 'wordRight':
      return at(wordEnd(chars, cursor));
    case 'up':
    case 'down':
      return at(verticalMove(chars, cursor, edit.type === 'up' ? -1 : 1));
    case 'home':
      return at(lineStart(chars, cursor));
    case 'end':
      return at(lineEnd(chars, cursor));
    case 'deleteWord':
      return cut(wordStart(chars, cursor), cursor);
    case 'killToStart':
      return cut(lineStart(chars, cursor), cursor);
    case 'killToEnd':
      return cut(cursor, lineEnd(chars, cursor));
    case 'set': {
      const length = Array.from(edit.text).length;
      return { text: edit.text, cursor: Math.min(length, Math.max(0, edit.cursor ?? length)) };
    }
    default: {
      const unhandled: never = edit;
      return unhandled;
    }
  }
}

/** Which line of the text the cursor is on, and how many lines there are. */
export function cursorLine(state: LineState): { line: number; lines: number } {
  const chars = Array.from(state.text);
  const before = chars.slice(0, state.cursor).filter((c) => c === '\n').length;
  return { line: before, lines: chars.filter((c) => c === '\n').length + 1 };
}

const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}_]/u.test(char);

function wordStart(chars: string[], cursor: number): number {
  let i = cursor;
  while (i > 0 && !isWordChar(chars[i - 1])) i -= 1;
  while (i > 0 && isWordChar(chars[i - 1])) i -= 1;
  return i;
}

function wordEnd(chars: string[], cursor: number): number {
  let i = cursor;
  while (i < chars.length && !isWordChar(chars[i])) i += 1;
  while (i < chars.length && isWordChar(chars[i])) i += 1;
  return i;
}

function lineStart(chars: string[], cursor: number): number {
  let i = cursor;
  while (i > 0 && chars[i - 1] !== '\n') i -= 1;
  return i;
}

function lineEnd(chars: string[], cursor: number): number {
  let i = cursor;
  while (i < chars.length && chars[i] !== '\n') i += 1;
  return i;
}

function verticalMove(chars: string[], cursor: number, direction: -1 | 1): number {
  const start = lineStart(chars, cursor);
  const column = cursor - start;
  if (direction < 0) {
    if (start === 0) return cursor;
    const previousStart = lineStart(chars, start - 1);
    return Math.min(previousStart + column, start - 1);
  }
  const end = lineEnd(chars, cursor);
  if (end >= chars.length) return cursor;
  const nextStart = end + 1;
  return Math.min(nextStart + column, lineEnd(chars, nextStart));
}

/** Pasted text keeps its line breaks (as \n); tabs become two spaces, other control characters go. */
function printable(text: string): string {
  const kept = text.replace(/\r\n|\r/g, '\n').replace(/\t/g, '  ');
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this drops
  return kept.replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '');
}
