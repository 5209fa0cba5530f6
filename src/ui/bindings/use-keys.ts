import { type Key, useInput } from 'ink';
import { type ReactNode, createContext, createElement, useContext, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { PASTE_END, PASTE_START } from '../state/input-keys.js';
import { splitKeys } from '../state/split-keys.js';

export type KeyHandler = (input: string, key: Key) => void;

interface Listener {
  handler: { current: KeyHandler };
  active: { current: boolean };
}

/** The keys of one Ink app: one `useInput`, split into typed keys, handed to every listener in turn. */
interface KeyHub {
  listen: (listener: Listener) => () => void;
  /** One Ink input event: each typed key in it goes to every active listener before the next key. */
  dispatch: (input: string, key: Key) => void;
}

function createKeyHub(): KeyHub {
  const listeners = new Set<Listener>();
  let pasting = false;
  return {
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispatch(input, key) {
      const events = splitKeys(input, key, { pasting });
      pasting = pastingAfter(input, pasting);
      const now = [...listeners];
      for (const event of events) {
        for (const listener of now) if (listener.active.current) listener.handler.current(event.input, event.key);
      }
    },
  };
}

const KeyHubContext = createContext<KeyHub | undefined>(undefined);

/** Whether a bracketed paste is open after `input`. */
export function pastingAfter(input: string, pasting: boolean): boolean {
  if (input === PASTE_START) return true;
  if (input === PASTE_END) return false;
  return pasting;
}

/**
 * Splits one Ink input event into typed keys (split-keys.ts) and gives each key to every
 * active listener before the next key, so a Ctrl+C inside `abc\x03xyz` acts once, after
 * `abc` and before `xyz`, whichever component listens for it.
 */
export function KeysProvider({ children }: { children: ReactNode }) {
  const [hub] = useState(createKeyHub);
  useInput(hub.dispatch);
  return createElement(KeyHubContext.Provider, { value: hub }, children);
}

/**
 * `useInput`, key by key: every handler in the UI takes its keys through here, so keys that
 * arrive in one read (`\x15xyz`: Ctrl+U, then xyz) reach it one by one, as typed. Under a
 * KeysProvider the keys are split once for all handlers and given in order; without one (a
 * component rendered alone) this handler splits them itself.
 */
export function useKeys(handler: KeyHandler, options: { isActive?: boolean } = {}): void {
  const hub = useContext(KeyHubContext);
  const active = options.isActive !== false;
  const handlerRef = useRef(handler);
  const activeRef = useRef(active);
  // Updated as each render commits, before any key can arrive for it.
  useLayoutEffect(() => {
    handlerRef.current = handler;
    activeRef.current = active;
  });
  useEffect(() => {
    if (!hub) return;
    const stop = hub.listen({ handler: handlerRef, active: activeRef });
    return () => {
      stop();
    };
  }, [hub]);
  const pasting = useRef(false);
  useInput(
    (input, key) => {
      const events = splitKeys(input, key, { pasting: pasting.current });
      pasting.current = pastingAfter(input, pasting.current);
      for (const event of events) handlerRef.current(event.input, event.key);
    },
    { isActive: !hub && active },
  );
}
