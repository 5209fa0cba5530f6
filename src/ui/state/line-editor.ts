/** The input line: its text and the cursor (an index into the text's code points). */
export interface LineState {
  text: string;
  cursor: number;
}

export const emptyLine: LineState = { text: '', cursor: 0 };

export type LineEdit =
  | { type: 'insert'; text: string }
  | { type: 'backspace' }
  | { type: 'left' }
  | { type: 'right' }
  | { type: 'home' }
  | { type: 'end' }
  | { type: 'set'; text: string };

/** Applies one edit; works on code points so an emoji is one step. */
export function editLine(state: LineState, edit: LineEdit): LineState {
  const chars = Array.from(state.text);
  const cursor = Math.min(Math.max(0, state.cursor), chars.length);
  switch (edit.type) {
    case 'insert': {
      const inserted = Array.from(printable(edit.text));
      if (inserted.length === 0) return state;
      chars.splice(cursor, 0, ...inserted);
      return { text: chars.join(''), cursor: cursor + inserted.length };
    }
    case 'backspace':
      if (cursor === 0) return state;
      chars.splice(cursor - 1, 1);
      return { text: chars.join(''), cursor: cursor - 1 };
    case 'left':
      return { ...state, cursor: Math.max(0, cursor - 1) };
    case 'right':
      return { ...state, cursor: Math.min(chars.length, cursor + 1) };
    case 'home':
      return { ...state, cursor: 0 };
    case 'end':
      return { ...state, cursor: chars.length };
    case 'set':
      return { text: edit.text, cursor: Array.from(edit.text).length };
    default: {
      const unhandled: never = edit;
      return unhandled;
    }
  }
}

/** Pasted text keeps its words; line breaks become spaces and control characters go. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this drops
  return text.replace(/\r\n|\r|\n|\t/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
}
