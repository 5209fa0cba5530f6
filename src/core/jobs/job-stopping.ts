import type { DeliveryTracker } from './delivery.js';
import { compareJobIds } from './job-ids.js';
import { type JobRecord, isEnded } from './job-record.js';
import type { JobTable } from './job-table.js';
import type { Timers } from './job-types.js';

/** What stopping a job reaches. */
export interface StopContext {
  table: JobTable;
  delivery: DeliveryTracker;
  now: () => number;
}

/** Stops a job, its subtree first (deepest first), and its shells with it. */
export function abortJob(ctx: StopContext, job: JobRecord): void {
  stopOwnedBy(ctx, job.id);
  job.state = 'aborted';
  job.endedAt = ctx.now();
  job.controller.abort(new Error(`sub-agent ${job.id} was stopped`));
  job.shell?.handle.stop('abort');
  ctx.table.finish(job);
}

/** Stops every job `owner` started (their own first); those that ended are owed to nobody now. */
export function stopOwnedBy(ctx: StopContext, owner: string): void {
  for (const child of ctx.table.ownedBy(owner).sort((a, b) => compareJobIds(b.id, a.id))) {
    if (!isEnded(child.state)) abortJob(ctx, child);
    ctx.delivery.claim(child.id);
  }
}

const CLOSE_GRACE_MS = 2000;

/**
 * The session closes: queue jobs are let go (detached: they go on on their workers), every
 * other job still queued or running is marked interrupted (neither the user nor the model
 * stopped it; a resumed session names it so) and stopped, and their runs get 2 s to return.
 */
export async function closeJobs(ctx: {
  records: () => JobRecord[];
  detach?: () => Promise<void>;
  stopAll: () => void;
  timers: Timers;
}): Promise<void> {
  const withinGrace = async (work: Promise<unknown>) => {
    let handle: unknown;
    await Promise.race([
      work,
      new Promise<void>((resolve) => {
        handle = ctx.timers.setTimeout(resolve, CLOSE_GRACE_MS);
      }),
    ]);
    ctx.timers.clearTimeout(handle);
  };
  if (ctx.detach) {
    const remote = ctx.records().filter((job) => !isEnded(job.state) && job.remoteId !== undefined);
    await ctx.detach();
    await withinGrace(Promise.all(remote.map((job) => job.settled)));
  }
  for (const job of ctx.records()) if (!isEnded(job.state) && !job.detached) job.interrupted = true;
  ctx.stopAll();
  await withinGrace(Promise.all(ctx.records().map((job) => job.settled)));
}
