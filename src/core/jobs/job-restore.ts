import type { DeliveryTracker } from './delivery.js';
import type { JobNumbers } from './job-numbers.js';
import { type StoredJob, newRecord } from './job-record.js';
import type { JobRuns } from './job-runs.js';
import type { JobTable } from './job-table.js';
import type { Job } from './job-types.js';

/** What taking in a session's earlier jobs needs of the manager. */
export interface RestoreContext {
  numbers: JobNumbers;
  table: JobTable;
  delivery: DeliveryTracker;
  runs: JobRuns;
  /** The session sends jobs to a queue this time: its queue jobs can be followed again. */
  queue: boolean;
}

/**
 * Takes in the jobs of a session's earlier runs (JobManager.restore). A job that never ran (or
 * whose run left nothing) starts over from its task when resumed. A queue job the session left
 * running goes on on its worker: it is followed again from its start, or, without the queue this
 * time, listed as out of reach.
 */
export function restoreJobs(ctx: RestoreContext, stored: readonly StoredJob[], takenIds: readonly string[]): void {
  for (const id of takenIds) ctx.numbers.taken(id);
  for (const { job, messages, owed } of stored) {
    ctx.numbers.taken(job.id);
    if (ctx.table.has(job.id)) continue;
    const following = job.remoteId !== undefined && job.state === 'running';
    const record = newRecord(following && !ctx.queue ? unreachable(job) : job, messages.length ? { history: messages } : {});
    ctx.table.add(record);
    if (following && ctx.queue) {
      ctx.runs.enqueue(record, undefined, undefined, { remoteId: job.remoteId! });
      continue;
    }
    if (owed && (job.state === 'done' || job.state === 'error')) ctx.delivery.ended(job.id);
    else ctx.delivery.claim(job.id);
  }
}

/** A queue job whose session came back without the queue: it may still run on its worker. */
function unreachable(job: Job): Job {
  return {
    ...job,
    state: 'error',
    error: `it runs on the queue (${job.worker ?? 'a worker'}); resume the session with --queue to follow it`,
  };
}
