import type { Message } from '../providers/types.js';
import type { DeliveryTracker } from './delivery.js';
import type { JobDependencies } from './job-dependencies.js';
import { JobError } from './job-error.js';
import { snapshotOf, type JobRecord } from './job-record.js';
import type { JobRuns } from './job-runs.js';
import type { JobTable } from './job-table.js';
import type { MessageSender, SendResult } from './job-types.js';

/** What a message to a sub-agent needs from the manager. */
export interface SubMessageContext {
  table: JobTable;
  delivery: DeliveryTracker;
  runs: JobRuns;
  /** The session is closing: nothing may be resumed. */
  closed: () => boolean;
  /** A refusal (session budget spent), or undefined. */
  admission?: () => string | undefined;
  /** Jobs that wait for jobs: one that never ran waits again for those it names. */
  dependencies?: JobDependencies;
}

/**
 * A message for a sub-agent. Running: it joins the job's history at its next step boundary.
 * Queued: it joins the task. Ended (done, failed or stopped): the job runs again, same id,
 * with its whole history and the message, and owes a completion again.
 */
export function messageSubJob(ctx: SubMessageContext, job: JobRecord, text: string, from: MessageSender): SendResult {
  const body = text.trim();
  if (!body) throw new JobError('the message is empty: say what the sub-agent should do');
  const message: Message = {
    role: 'user',
    content: [{ type: 'text', text: `${from === 'user' ? 'Message from the user' : 'Message from the parent agent'}:\n${body}` }],
  };
  const addToTask = () => {
    job.task = `${job.task}\n\n${from === 'user' ? 'The user adds' : 'The parent adds'}: ${body}`;
  };
  if (job.state === 'queued') {
    addToTask();
    ctx.table.emitState(job);
    return { kind: 'task', job: snapshotOf(job) };
  }
  if (job.state === 'running') {
    job.inbox.push(message);
    return { kind: 'inbox', job: snapshotOf(job) };
  }
  if (ctx.closed()) throw new JobError('the session is closing; no sub-agent can be resumed');
  const refusal = ctx.admission?.();
  if (refusal) throw new JobError(refusal);
  // A job stopped before it ran (or whose run left nothing) starts over, the message added to its task.
  // Messages that arrived too late for the last run (a limit ended it) come before this one.
  const resume = job.history ? [...job.history, ...job.inbox.splice(0), message] : undefined;
  // One stopped while it waited for others waits for them again (refused when one failed or was stopped).
  const waits = !resume && !job.afterMet && job.after?.length && ctx.dependencies;
  if (waits) waits.check(job.after!, job.id, job.owner);
  if (!resume) addToTask();
  job.state = 'queued';
  job.startedAt = undefined;
  job.endedAt = undefined;
  job.result = undefined;
  job.error = undefined;
  // Resumed, it is an ordinary job again: what ends it next is its own.
  delete job.interrupted;
  ctx.delivery.reopen(job.id);
  // A stopped run may still be winding down: the new one starts once it has returned.
  const previous = job.settled;
  const held = waits ? waits.hold(job) : undefined;
  ctx.runs.enqueue(job, resume, held ? Promise.all([previous, held]) : previous);
  return { kind: 'resumed', job: snapshotOf(job) };
}
