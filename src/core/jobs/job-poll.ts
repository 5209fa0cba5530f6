import type { DeliveryTracker } from './delivery.js';
import { type JobRecord, isEnded, snapshotOf, waitForEnd } from './job-record.js';
import type { JobTable } from './job-table.js';
import type { PollResult, Timers } from './job-types.js';

/** What a poll of a sub-agent needs of the manager. */
export interface PollContext {
  table: JobTable;
  delivery: DeliveryTracker;
  timers: Timers;
  /** The poll timeout: a poll returns by then, with the job's progress, whatever the job does. */
  timeoutMs: number;
}

/**
 * Waits until the sub-agent ends, the timeout passes, or `signal` aborts. A returned result
 * settles the job's delivery; while it waits, notices leave the job out.
 */
export async function pollSubJob(ctx: PollContext, job: JobRecord, signal: AbortSignal): Promise<PollResult> {
  const { table, delivery } = ctx;
  if (isEnded(job.state)) {
    if (delivery.claim(job.id)) table.emitDelivered([job.id], 'poll');
    return { kind: 'ended', job: snapshotOf(job) };
  }
  delivery.pollStarted(job.id);
  const outcome = await waitForEnd(job, { timers: ctx.timers, timeoutMs: ctx.timeoutMs, signal });
  // A job that ended in the same tick as a timeout is returned, not left for a notice.
  const ended = isEnded(job.state) && outcome !== 'interrupted';
  if (delivery.pollEnded(job.id, ended)) table.emitDelivered([job.id], 'poll');
  if (ended) return { kind: 'ended', job: snapshotOf(job) };
  return { kind: outcome === 'interrupted' ? 'interrupted' : 'running', job: snapshotOf(job) };
}
