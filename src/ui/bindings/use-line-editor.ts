import { useCallback, useRef, useState } from 'react';
import { type LineEdit, type LineState, editLine, emptyLine } from '../state/line-editor.js';

export interface LineEditor {
  line: LineState;
  edit: (edit: LineEdit) => void;
  /** Returns the text and empties the line. */
  take: () => string;
  /** The line as of the last edit, even before React has re-rendered. */
  current: () => LineState;
  /** Replaces the text, the cursor at its end. */
  set: (text: string) => void;
}

/**
 * The input line's state, mirrored in a ref: keys that arrive in one chunk ("hello⏎")
 * reach their handlers before React re-renders, so each must see the previous key's edit.
 * `initialText` starts it as if typed into the empty line.
 */
export function useLineEditor(initialText?: string): LineEditor {
  const [initial] = useState(() => (initialText ? editLine(emptyLine, { type: 'insert', text: initialText }) : emptyLine));
  const ref = useRef<LineState>(initial);
  const [line, setLine] = useState<LineState>(initial);
  const edit = useCallback((change: LineEdit) => {
    const next = editLine(ref.current, change);
    if (next === ref.current) return;
    ref.current = next;
    setLine(next);
  }, []);
  const take = useCallback(() => {
    const text = ref.current.text;
    ref.current = emptyLine;
    setLine(emptyLine);
    return text;
  }, []);
  const current = useCallback(() => ref.current, []);
  const set = useCallback((text: string) => edit({ type: 'set', text }), [edit]);
  return { line, edit, take, current, set };
}
