/**
 * What the session's events mean for the status lines: the totals of the session's JSON that no
 * other part of the app counts (time spent waiting on the model, lines the edit tools changed),
 * and which lines a batch of events calls for again.
 */
import type { LoopEvent, SessionEvent } from '../../core/index.js';

/** Figures of the session's status JSON counted from its events. */
export interface StatusTotals {
  /** Milliseconds from each model call's start to its message's end, the parent's and every job's. */
  apiMs: number;
  linesAdded: number;
  linesRemoved: number;
  /** Model calls under way: who made them (`parent` or a job id) → when they started. */
  calls: Readonly<Record<string, number>>;
}

export const emptyTotals: StatusTotals = { apiMs: 0, linesAdded: 0, linesRemoved: 0, calls: {} };

/** The tools whose results say how many lines they changed. */
const EDIT_TOOLS = new Set(['write_file', 'edit_file']);

/** Counts one event in; `now` is when its batch is applied, on the app's clock. */
export function applyStatusEvent(totals: StatusTotals, event: SessionEvent, now: number): StatusTotals {
  if (event.type === 'job_event') return applyLoopEvent(totals, event.event, event.jobId, now);
  if (event.type === 'job_state' && event.job.state !== 'running' && event.job.id in totals.calls) {
    // A job stopped mid-call: its call is no longer anyone's to end.
    const { [event.job.id]: _stopped, ...calls } = totals.calls;
    return { ...totals, calls };
  }
  return applyLoopEvent(totals, event as LoopEvent, 'parent', now);
}

function applyLoopEvent(totals: StatusTotals, event: LoopEvent, who: string, now: number): StatusTotals {
  switch (event.type) {
    case 'turn_start':
      return { ...totals, calls: { ...totals.calls, [who]: now } };
    case 'message_end':
    case 'run_end': {
      const since = totals.calls[who];
      if (since === undefined) return totals;
      const { [who]: _ended, ...calls } = totals.calls;
      return { ...totals, apiMs: totals.apiMs + Math.max(0, now - since), calls };
    }
    case 'tool_end': {
      const changed = event.isError || !EDIT_TOOLS.has(event.name) ? undefined : linesChanged(event.content);
      if (!changed) return totals;
      return { ...totals, linesAdded: totals.linesAdded + changed.added, linesRemoved: totals.linesRemoved + changed.removed };
    }
    default:
      return totals;
  }
}

/**
 * The lines an edit tool's result says it changed: `Edited a.ts: … (+3 -1)`, `Updated a.ts (+3 -1)`,
 * `Created a.ts (12 lines)`; undefined when it says nothing of lines (no change, a binary file).
 */
export function linesChanged(content: string): { added: number; removed: number } | undefined {
  const first = content.split('\n', 1)[0] ?? '';
  const diff = /\(\+(\d+) -(\d+)\)$/.exec(first);
  if (diff && /^(Edited|Updated) /.test(first)) return { added: Number(diff[1]), removed: Number(diff[2]) };
  const created = /^Created .* \((\d+) lines?\)$/.exec(first);
  return created ? { added: Number(created[1]), removed: 0 } : undefined;
}

/** The child events that change what a job's row says (a stream's deltas do not: the row would run on every token). */
const JOB_CHANGES = new Set<LoopEvent['type']>([
  'turn_start',
  'tool_start',
  'tool_end',
  'message_end',
  'usage',
  'rate_limit',
  'injected',
]);

/** The session events after which its line is asked for again. */
const SESSION_CHANGES = new Set<SessionEvent['type']>([
  'submit',
  'message_end',
  'tool_end',
  'usage',
  'injected',
  'compact',
  'run_end',
  'job_state',
  'budget_reached',
]);

/** What a batch of events calls for: the session's line again, and the rows of which jobs. */
export function statusChanges(events: readonly SessionEvent[]): { session: boolean; jobs: ReadonlySet<string> } {
  let session = false;
  const jobs = new Set<string>();
  for (const event of events) {
    if (SESSION_CHANGES.has(event.type)) session = true;
    if (event.type === 'job_state') jobs.add(event.job.id);
    if (event.type === 'job_event' && JOB_CHANGES.has(event.event.type)) jobs.add(event.jobId);
  }
  return { session, jobs };
}
