import type { Key } from 'ink';
import { type LineEdit, type LineState, cursorLine } from './line-editor.js';

/** What one key (or one chunk of keys) does to the input. */
export type InputAction =
  | { type: 'edit'; edit: LineEdit }
  | { type: 'submit' }
  /** Keys typed fast arrive in one chunk: `hello⏎` is text, then Enter. */
  | { type: 'insertThenSubmit'; text: string }
  | { type: 'history'; direction: 'older' | 'newer' }
  | { type: 'menu'; action: 'up' | 'down' | 'accept' | 'dismiss' }
  /** A bracketed paste begins or ends: what comes between is text, Enter included. */
  | { type: 'paste'; action: 'start' | 'end' }
  | { type: 'none' };

/** Bracketed paste markers as Ink hands them over (the escape stripped). */
export const PASTE_START = '[200~';
export const PASTE_END = '[201~';
/** Focus reports (the app asks for them to know when to notify), as Ink hands them over. */
export const FOCUS_IN = '[I';
export const FOCUS_OUT = '[O';

const edit = (e: LineEdit): InputAction => ({ type: 'edit', edit: e });

/**
 * The input's keys: Enter sends; Shift+Enter, Alt+Enter, Ctrl+J or `\` then Enter start a new
 * line; ↑/↓ move between lines, then through the history; Ctrl+A/E line start and end,
 * Ctrl+U/W/K delete to the start, the word before, (Ctrl+K is the app's: it knows when it
 * stops sub-agents instead); Alt or Ctrl with ←/→ (or Alt+B/F) move by words; with a menu
 * open, ↑/↓ choose, Tab takes the choice, Esc closes it.
 */
export function inputAction(
  input: string,
  key: Key,
  state: { line: LineState; menuOpen: boolean; pasting: boolean },
): InputAction {
  if (input === FOCUS_IN || input === FOCUS_OUT) return { type: 'none' };
  if (input === PASTE_START) return { type: 'paste', action: 'start' };
  if (input === PASTE_END) return { type: 'paste', action: 'end' };
  if (state.pasting)
    return key.return ? edit({ type: 'newline' }) : input ? edit({ type: 'insert', text: input }) : { type: 'none' };
  if (state.menuOpen) {
    if (key.upArrow) return { type: 'menu', action: 'up' };
    if (key.downArrow) return { type: 'menu', action: 'down' };
    if (key.tab && !key.shift) return { type: 'menu', action: 'accept' };
    if (key.escape) return { type: 'menu', action: 'dismiss' };
  }
  if (key.return) {
    if (key.shift || key.meta) return edit({ type: 'newline' });
    const chars = Array.from(state.line.text);
    if (chars[state.line.cursor - 1] === '\\')
      return {
        type: 'edit',
        edit: {
          type: 'set',
          text: [...chars.slice(0, state.line.cursor - 1), '\n', ...chars.slice(state.line.cursor)].join(''),
          cursor: state.line.cursor,
        },
      };
    return { type: 'submit' };
  }
  if (input === '\n') return edit({ type: 'newline' });
  if (key.backspace || key.delete) return edit(key.meta ? { type: 'deleteWord' } : { type: 'backspace' });
  if (key.leftArrow) return edit(key.ctrl || key.meta ? { type: 'wordLeft' } : { type: 'left' });
  if (key.rightArrow) return edit(key.ctrl || key.meta ? { type: 'wordRight' } : { type: 'right' });
  if (key.upArrow) return cursorLine(state.line).line > 0 ? edit({ type: 'up' }) : { type: 'history', direction: 'older' };
  if (key.downArrow) {
    const { line, lines } = cursorLine(state.line);
    return line < lines - 1 ? edit({ type: 'down' }) : { type: 'history', direction: 'newer' };
  }
  if (key.home || (key.ctrl && input === 'a')) return edit({ type: 'home' });
  if (key.end || (key.ctrl && input === 'e')) return edit({ type: 'end' });
  if (key.ctrl && input === 'u') return edit({ type: 'killToStart' });
  if (key.ctrl && input === 'w') return edit({ type: 'deleteWord' });
  if (key.ctrl && input === 'd') return edit({ type: 'delete' });
  if (key.meta && input === 'b') return edit({ type: 'wordLeft' });
  if (key.meta && input === 'f') return edit({ type: 'wordRight' });
  // Other control keys (Ctrl+C, Ctrl+K, Esc, Tab, Shift+Tab) belong to someone else.
  if (key.ctrl || key.meta || key.escape || key.tab || key.pageUp || key.pageDown) return { type: 'none' };
  if (!input) return { type: 'none' };
  if (/^[^\r\n]+\r$/.test(input)) {
    // `\` then Enter typed fast (one chunk): the new line it asks for, as when typed key by key.
    if (input.endsWith('\\\r')) return edit({ type: 'insert', text: `${input.slice(0, -2)}\n` });
    return { type: 'insertThenSubmit', text: input.slice(0, -1) };
  }
  // A chunk with line breaks inside is a paste (a terminal without bracketed paste): its lines stay lines.
  return edit({ type: 'insert', text: input.replace(/(\r\n|\r|\n)$/, '') });
}

/**
 * Keys typed while the app started, when they are nothing but text (no Enter, Tab, Ctrl or
 * Alt key, arrow or other escape sequence): what they would insert into the empty input, so
 * it can hold them from the first frame. Undefined for any other keys, which must reach the
 * app as typed, in order.
 */
export function typedText(keys: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  return keys !== '' && !/[\u0000-\u001F\u007F-\u009F]/.test(keys) ? keys : undefined;
}
