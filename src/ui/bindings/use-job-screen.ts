import { useStdout } from 'ink';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { AltScreen } from '../alt-screen.js';
import type { Clock } from '../clock.js';
import { entryLines, liveLines } from '../components/entry-lines.js';
import { estimatedBodyHeight } from '../components/job-screen.js';
import { JobFeed } from '../job-feed.js';
import type { JobViewStore } from '../state/job-view-store.js';
import type { UiStore } from '../state/ui-store.js';
import type { UiSession } from '../ui-session.js';

export interface JobScreenOptions {
  session: UiSession;
  /** The app's store: the jobs as the chat knows them. */
  store: UiStore;
  clock: Clock;
  flushMs: number;
  /** The terminal's alternate screen; without it (tests) the view replaces the live area on the same screen. */
  screen?: AltScreen;
  /** Entries of the chat's transcript printed so far: no more print while the view is up. */
  printed: number;
}

/** The job view's state and its two intents, for the app. */
export interface JobScreenControl {
  /** The job shown full screen, and its transcript's store; undefined when none is (or it is closing). */
  shown?: { id: string; body: JobViewStore };
  /** The job last shown: /agents selects it again. */
  lastId?: string;
  /** Opens job `id` full screen on a terminal this size; call it from a key handler (the transcript is drawn there). */
  open: (id: string, terminal: { width: number; height: number }) => void;
  /** Back to the main screen, then `then` (a quit waits for it). At once when no job is shown. */
  close: (then?: () => void) => void;
  /** The chat's entries to hand to its <Static>: those printed before the view opened, while it is up. */
  entries: <T>(all: T[]) => T[];
  /** The view is up or closing: a redraw of the chat (a resize) waits until it is gone. */
  holding: boolean;
}

type Phase =
  | { kind: 'closed' }
  | { kind: 'open'; id: string; body: JobViewStore }
  /** The main screen's frame is being computed (on the alternate screen still); once it is, the screen switches back. */
  | { kind: 'closing'; since: number; then?: () => void };

/**
 * The job view's lifecycle. Opening switches to the alternate screen and starts the job's feed
 * (its stored transcript, then its events); the chat's <Static> stops printing, so nothing of
 * the conversation that goes on behind is written where it would be lost. Closing renders the
 * main screen's frame first, then switches back (the normal screen as it was, cursor where the
 * live area was), then lets <Static> print what came meanwhile, once, in order.
 */
export function useJobScreen({ session, store, clock, flushMs, screen, printed }: JobScreenOptions): JobScreenControl {
  const { write } = useStdout();
  const [phase, setPhase] = useState<Phase>({ kind: 'closed' });
  const [frozen, setFrozen] = useState<number | undefined>(undefined);
  const [lastId, setLastId] = useState<string | undefined>(undefined);
  const latest = useRef({ printed, phase: phase as Phase, feed: undefined as JobFeed | undefined });
  // As committed: the count <Static> has printed, and the phase keys see.
  useLayoutEffect(() => {
    latest.current.printed = printed;
    latest.current.phase = phase;
  });
  useEffect(() => () => latest.current.feed?.dispose(), []);

  const open = useCallback(
    (id: string, terminal: { width: number; height: number }) => {
      const view = store.snapshot().jobs.get(id);
      if (!view || latest.current.phase.kind !== 'closed') return;
      screen?.enter(write);
      const { root } = store.snapshot();
      const feed = new JobFeed({
        session,
        job: view.job,
        jobs: () => [...store.snapshot().jobs.values()].map((v) => v.job),
        facts: () => ({ owed: [], running: 0, root, job: (jobId) => store.snapshot().jobs.get(jobId)?.job }),
        clock,
        flushMs,
        size: { width: terminal.width, height: estimatedBodyHeight(terminal.height) },
        entryLines,
        liveLines,
      });
      latest.current.feed = feed;
      const next: Phase = { kind: 'open', id, body: feed.store };
      latest.current.phase = next;
      setFrozen(latest.current.printed);
      setLastId(id);
      setPhase(next);
    },
    [session, store, clock, flushMs, screen, write],
  );

  const close = useCallback(
    (then?: () => void) => {
      const current = latest.current.phase;
      if (current.kind === 'closing') return;
      latest.current.feed?.dispose();
      latest.current.feed = undefined;
      if (current.kind === 'closed' || !screen?.active()) {
        latest.current.phase = { kind: 'closed' };
        setPhase({ kind: 'closed' });
        setFrozen(undefined);
        then?.();
        return;
      }
      const next: Phase = { kind: 'closing', since: screen.frame(), ...(then ? { then } : {}) };
      latest.current.phase = next;
      setPhase(next);
    },
    [screen],
  );

  // The main screen's frame is committed: switch back once Ink has computed it, then print what waited.
  useLayoutEffect(() => {
    if (phase.kind !== 'closing' || !screen) return;
    screen.leaveAfter(phase.since, write, () => {
      latest.current.phase = { kind: 'closed' };
      setPhase({ kind: 'closed' });
      setFrozen(undefined);
      phase.then?.();
    });
  }, [phase, screen, write]);

  const entries = useCallback(<T>(all: T[]) => (frozen === undefined ? all : all.slice(0, frozen)), [frozen]);
  return {
    holding: phase.kind !== 'closed',
    ...(phase.kind === 'open' ? { shown: { id: phase.id, body: phase.body } } : {}),
    ...(lastId ? { lastId } : {}),
    open,
    close,
    entries,
  };
}
