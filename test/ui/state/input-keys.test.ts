import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { inputAction, typedText } from '../../../src/ui/state/input-keys.js';
import { NO_KEY } from '../../../src/ui/state/split-keys.js';

const key = (over: Partial<Key>): Key => ({ ...NO_KEY, ...over });
const at = (text: string, cursor = Array.from(text).length) => ({ line: { text, cursor }, menuOpen: false, pasting: false });

describe('what a key does to the input', () => {
  it('sends on Enter, starts a line on Shift+Enter, Alt+Enter, Ctrl+J or a backslash before Enter', () => {
    expect(inputAction('', key({ return: true }), at('hi'))).toEqual({ type: 'submit' });
    expect(inputAction('', key({ return: true, shift: true }), at('hi'))).toEqual({ type: 'edit', edit: { type: 'newline' } });
    expect(inputAction('', key({ return: true, meta: true }), at('hi'))).toEqual({ type: 'edit', edit: { type: 'newline' } });
    expect(inputAction('\n', NO_KEY, at('hi'))).toEqual({ type: 'edit', edit: { type: 'newline' } });
    expect(inputAction('', key({ return: true }), at('a\\'))).toEqual({
      type: 'edit',
      edit: { type: 'set', text: 'a\n', cursor: 2 },
    });
  });

  it('moves by words with Ctrl or Alt, and goes to the history only from the first or last line', () => {
    expect(inputAction('', key({ leftArrow: true, ctrl: true }), at('a b'))).toEqual({
      type: 'edit',
      edit: { type: 'wordLeft' },
    });
    expect(inputAction('f', key({ meta: true }), at('a b', 0))).toEqual({ type: 'edit', edit: { type: 'wordRight' } });
    expect(inputAction('', key({ upArrow: true }), at('one\ntwo'))).toEqual({ type: 'edit', edit: { type: 'up' } });
    expect(inputAction('', key({ upArrow: true }), at('one\ntwo', 1))).toEqual({ type: 'history', direction: 'older' });
    expect(inputAction('', key({ downArrow: true }), at('one\ntwo'))).toEqual({ type: 'history', direction: 'newer' });
  });

  it('gives ↑/↓, Tab and Esc to an open menu, and takes everything between paste markers as text', () => {
    const menu = { ...at('/co'), menuOpen: true };
    expect(inputAction('', key({ downArrow: true }), menu)).toEqual({ type: 'menu', action: 'down' });
    expect(inputAction('', key({ tab: true }), menu)).toEqual({ type: 'menu', action: 'accept' });
    expect(inputAction('', key({ escape: true }), menu)).toEqual({ type: 'menu', action: 'dismiss' });
    expect(inputAction('[200~', NO_KEY, at(''))).toEqual({ type: 'paste', action: 'start' });
    const pasting = { ...at(''), pasting: true };
    expect(inputAction('', key({ return: true }), pasting)).toEqual({ type: 'edit', edit: { type: 'newline' } });
    expect(inputAction('x\ry', NO_KEY, pasting)).toEqual({ type: 'edit', edit: { type: 'insert', text: 'x\ry' } });
  });

  it('leaves Ctrl+C, Ctrl+K, Esc and Shift+Tab to the app', () => {
    for (const k of [key({ ctrl: true }), key({ escape: true }), key({ tab: true, shift: true })]) {
      expect(inputAction(k.ctrl ? 'k' : '', k, at('x')).type).toBe('none');
    }
  });
});

describe('keys typed during start-up', () => {
  it('are plain text the input can start with, or keys the app must read as typed', () => {
    expect(typedText('k')).toBe('k');
    expect(typedText('fix the tests, please — ça va ✓')).toBe('fix the tests, please — ça va ✓');
    expect(typedText('/help')).toBe('/help');
    // Enter, Tab, Backspace, Ctrl keys, arrows (escape sequences) and C1 controls are keys.
    for (const keys of ['', 'hello\r', 'a\tb', 'ab\u007F', '\u0003', 'x\u001B[A', '\u001B', 'a\u009Bb']) {
      expect(typedText(keys)).toBeUndefined();
    }
  });
});
