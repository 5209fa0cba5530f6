import type { Key } from 'ink';

/** One key as a handler sees it: what Ink passes to a `useInput` handler. */
export interface KeyEvent {
  input: string;
  key: Key;
}

/**
 * Control characters that are keys of their own: every C0 character but Tab, LF and CR
 * (those stay in text: `text⏎` is text then Enter, and a chunk with line breaks inside is a
 * paste from a terminal without bracketed paste), and DEL.
 */
// eslint-disable-next-line no-control-regex -- these are the characters looked for
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** A key with no flag set: plain text. */
export const NO_KEY: Readonly<Key> = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/**
 * Ink 6 splits escape sequences into separate input events, but hands a run of plain bytes,
 * control characters included, to `useInput` as one event: keys that arrive in one read
 * (fast typing, type-ahead while a frame renders, a script writing several keys) would be
 * one "paste". This turns one such event back into the keys typed: text runs stay text,
 * each control character (but Tab, LF, CR) becomes its own event shaped as Ink shapes that
 * key alone (Ctrl+U is `u` with `ctrl`, DEL is `delete`, BS `backspace`, NUL is Ink's
 * Ctrl+`` ` ``). Inside a bracketed paste nothing is split: pasted text goes in as it came.
 * Any other event (a key alone, an escape sequence, a paste marker) comes back as it is.
 */
export function splitKeys(input: string, key: Key, options: { pasting: boolean }): KeyEvent[] {
  if (options.pasting || input.length < 2 || !isPlainRun(key)) return [{ input, key }];
  const events: KeyEvent[] = [];
  let from = 0;
  for (const match of input.matchAll(CONTROL)) {
    if (match.index > from) events.push(typedAlone(input.slice(from, match.index)));
    events.push(typedAlone(match[0]));
    from = match.index + 1;
  }
  if (from === 0) return [{ input, key }];
  if (from < input.length) events.push(typedAlone(input.slice(from)));
  return events;
}

/** Ink's key for a run of plain bytes: nothing pressed but the text. */
function isPlainRun(key: Key): boolean {
  return (Object.keys(NO_KEY) as (keyof typeof NO_KEY)[]).every((name) => !key[name]);
}

/**
 * What Ink's `useInput` hands over for `sequence` arriving alone (parse-keypress.js, then
 * use-input.js), for sequences without an escape sequence inside: one control character, or
 * text that may hold Tab, LF or CR.
 */
export function typedAlone(sequence: string): KeyEvent {
  const key = (changes: Partial<Key>, input = ''): KeyEvent => ({ input, key: { ...NO_KEY, ...changes } });
  if (sequence.length !== 1) return key({}, sequence);
  switch (sequence) {
    case '\r':
      return key({ return: true }, '\r');
    case '\t':
      return key({ tab: true });
    case '\b':
      return key({ backspace: true });
    case '\u007f':
      return key({ delete: true });
    case '\u001b':
      return key({ escape: true, meta: true });
    case '\n':
      return key({}, '\n');
    default:
      break;
  }
  const code = sequence.charCodeAt(0);
  // Ctrl+letter: \x01 is `a`, \x1a is `z`; NUL comes out as Ink's Ctrl+` (0x60).
  if (code <= 0x1a) return key({ ctrl: true }, String.fromCharCode(code + 0x60));
  return key({ shift: /[A-Z]/.test(sequence) }, sequence);
}
