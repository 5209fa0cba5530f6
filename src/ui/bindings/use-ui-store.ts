import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import type { Clock } from '../clock.js';
import { EventBuffer } from '../state/event-buffer.js';
import type { SentMessage } from '../state/jobs.js';
import type { EntryBody } from '../state/transcript.js';
import { type UiItem, type UiState, UiStore } from '../state/ui-store.js';
import type { UiSession } from '../ui-session.js';

/**
 * The app's one reader of the session's event stream: events are gathered for `flushMs`
 * and applied as one batch, so a fast stream or a storm of job events costs one render
 * per window. `say` adds a line of the app's own, in order with the events before it.
 */
export function useUiStore(
  session: UiSession,
  options: { clock: Clock; flushMs: number; initial: () => UiState },
): {
  store: UiStore;
  state: UiState;
  say: (entry: EntryBody) => void;
  /** Records that the user's message reached a job, in order with the events before it. */
  sent: (sent: SentMessage) => void;
  /** Starts the transcript again with these entries (after /rewind), in order with the events before it. */
  redraw: (entries: readonly EntryBody[]) => void;
} {
  const [store] = useState(() => new UiStore(options.initial(), { cost: () => session.cost() }));
  const [buffer] = useState(
    () => new EventBuffer<UiItem>(options.flushMs, (items) => store.apply(items, options.clock.now()), options.clock),
  );

  useEffect(() => {
    const unsubscribe = session.events.subscribe((item) => buffer.push({ kind: 'event', item }));
    return () => {
      unsubscribe();
      buffer.dispose();
    };
  }, [session, buffer]);

  const say = useCallback(
    (entry: EntryBody) => {
      buffer.push({ kind: 'line', entry });
      buffer.flush();
    },
    [buffer],
  );
  const sent = useCallback(
    (message: SentMessage) => {
      buffer.push({ kind: 'sent', sent: message });
      buffer.flush();
    },
    [buffer],
  );
  const redraw = useCallback(
    (entries: readonly EntryBody[]) => {
      buffer.push({ kind: 'redraw', entries });
      buffer.flush();
    },
    [buffer],
  );
  const state = useSyncExternalStore(store.subscribe, store.snapshot);
  return { store, state, say, sent, redraw };
}
