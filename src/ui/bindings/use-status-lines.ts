import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { PermissionMode, SessionEvent, StatusCommand } from '../../core/index.js';
import type { Clock } from '../clock.js';
import type { JobView } from '../state/jobs.js';
import { applyStatusEvent, emptyTotals, statusChanges } from '../state/status-events.js';
import { jobStatusInput, sessionStatusInput } from '../state/status-input.js';
import { StatusLines } from '../state/status-lines.js';
import type { EntryBody } from '../state/transcript.js';
import type { UiItem, UiStore } from '../state/ui-store.js';
import type { UiSession } from '../ui-session.js';
import packageJson from '../../../package.json' with { type: 'json' };

/** Job rows whose commands start together at most (one batch per 300 ms), however many rows changed. */
export const JOB_STATUS_BATCH = 4;

export interface StatusLineOptions {
  session: UiSession;
  store: UiStore;
  clock: Clock;
  /** Where a command's first failure is told (dimmed, once). */
  say: (entry: EntryBody) => void;
}

const noLines: ReadonlyMap<string, string> = new Map();
const noSubscribe = () => () => {};

/** One status command's lines by key, while the component lives (its runs stop with it). */
function useStatusRuns(command: StatusCommand | undefined, options: StatusLineOptions & { name: string; maxBatch: number }) {
  const { clock, say, name, maxBatch } = options;
  const [runs] = useState(() =>
    command ? new StatusLines({ command, clock, name, maxBatch, onFailure: (text) => say({ kind: 'info', text }) }) : undefined,
  );
  useEffect(() => () => runs?.close(), [runs]);
  const lines = useSyncExternalStore(runs?.subscribe ?? noSubscribe, runs?.snapshot ?? (() => noLines));
  return { runs, lines };
}

const eventsOf = (items: readonly UiItem[]): SessionEvent[] =>
  items.flatMap((item) => (item.kind === 'event' ? [item.item.event] : []));

/**
 * The session's status line (`statusLine`): asked for when the app starts, after a batch of
 * events that changes the session (a message, a tool's end, a job's state), and when the mode
 * changes; its padding.
 */
export function useSessionStatusLine(options: StatusLineOptions & { mode: PermissionMode }): { line?: string; padding: number } {
  const { session, store, clock, mode } = options;
  const command = session.statusLine?.main;
  const { runs, lines } = useStatusRuns(command, { ...options, name: 'status line (statusLine)', maxBatch: 1 });
  const [startedAt] = useState(() => clock.now());
  const totals = useRef(emptyTotals);
  const ask = useCallback(() => {
    if (!runs) return;
    const state = store.snapshot();
    const input = sessionStatusInput({
      sessionId: session.sessionId,
      ...(session.transcriptPath ? { transcriptPath: session.transcriptPath } : {}),
      cwd: session.root,
      model: session.model,
      version: packageJson.version,
      mode,
      ...(session.effort ? { effort: session.effort } : {}),
      cost: state.cost,
      startedAt,
      now: clock.now(),
      totals: totals.current,
      jobs: [...state.jobs.values()].map((view) => view.job),
      ...(state.contextTokens !== undefined ? { contextTokens: state.contextTokens } : {}),
      contextWindow: session.contextWindow,
    });
    runs.request([['session', input]]);
  }, [runs, session, store, clock, mode, startedAt]);
  useEffect(() => {
    if (!runs) return;
    return store.onBatch((items) => {
      const events = eventsOf(items);
      const now = clock.now();
      for (const event of events) totals.current = applyStatusEvent(totals.current, event, now);
      if (statusChanges(events).session) ask();
    });
  }, [runs, store, clock, ask]);
  // At the start, and whenever the mode changes (ask is made again with it).
  useEffect(() => ask(), [ask]);
  return { line: lines.get('session'), padding: command?.padding ?? 0 };
}

/**
 * Each sub-agent row's line (`subagentStatusLine`), for the rows on screen only: a row asks
 * when it comes on screen and after its job's events (a step, a tool, a state), in batches
 * of at most JOB_STATUS_BATCH rows; a row that leaves the screen drops its line.
 */
export function useJobStatusLines(options: StatusLineOptions & { shown: readonly JobView[] }): ReadonlyMap<string, string> {
  const { session, store, clock, shown } = options;
  const { runs, lines } = useStatusRuns(session.statusLine?.subagent, {
    ...options,
    name: 'sub-agent status line (subagentStatusLine)',
    maxBatch: JOB_STATUS_BATCH,
  });
  const ids = shown
    .filter((view) => view.job.kind !== 'shell')
    .map((view) => view.job.id)
    .join(' ');
  const visible = useRef<ReadonlySet<string>>(new Set());
  const inputs = useCallback(
    (wanted: Iterable<string>): Array<[string, unknown]> =>
      [...wanted].flatMap((id) => {
        const view = store.snapshot().jobs.get(id);
        if (!view) return [];
        const worktree = session.worktrees?.().find((record) => record.jobId === id);
        const cost = session.costOf(view.job.usage, view.job.id);
        const facts = { sessionId: session.sessionId, cwd: session.root, now: clock.now(), cost, worktree };
        return [[id, jobStatusInput(view, facts)]];
      }),
    [session, store, clock],
  );
  useEffect(() => {
    if (!runs) return;
    const wanted = new Set(ids ? ids.split(' ') : []);
    visible.current = wanted;
    runs.retain(wanted);
    // A row that just came on screen asks for its line.
    runs.request(inputs([...wanted].filter((id) => !runs.snapshot().has(id))));
  }, [runs, ids, inputs]);
  useEffect(() => {
    if (!runs) return;
    return store.onBatch((items) => {
      const changed = [...statusChanges(eventsOf(items)).jobs].filter((id) => visible.current.has(id));
      if (changed.length) runs.request(inputs(changed));
    });
  }, [runs, store, inputs]);
  return lines;
}
