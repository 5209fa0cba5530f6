import type { DeliveryTracker } from './delivery.js';
import { compareJobIds } from './job-ids.js';
import { type JobRecord, isEnded } from './job-record.js';
import type { JobTable } from './job-table.js';

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
