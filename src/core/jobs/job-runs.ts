import type PQueue from 'p-queue';
import type { LoopEvent } from '../loop/events.js';
import type { CallAdmission } from '../loop/agent-loop.js';
import { type Message, type ModelRequest, type Usage, addUsage, usageTokens } from '../providers/types.js';
import type { DeliveryTracker } from './delivery.js';
import { depthOfId } from './job-ids.js';
import type { JobRecord } from './job-record.js';
import { DetachedRun } from './job-error.js';
import type { JobTable } from './job-table.js';
import { NO_TEXT_OUTPUT } from './job-texts.js';
import type { ChildOutcome, ChildRunner, JobState } from './job-types.js';

/** What running sub-agents needs from the manager. */
export interface JobRunsContext {
  queue: PQueue;
  /** Where a job that runs on the session's queue waits, when it is one (they take no local slot). */
  remoteQueue?: { queue: PQueue; runsRemotely: (job: JobRecord) => boolean };
  run: ChildRunner;
  table: JobTable;
  delivery: DeliveryTracker;
  now: () => number;
  onUsage?: (jobId: string, usage: Usage) => void;
  /** Before each model call of a job: its caps, its owners' and the session's (undefined: nothing capped). */
  admitCall?: (jobId: string, request: ModelRequest) => CallAdmission | undefined;
  /** The completion notice of `owner`'s own jobs, for its next step boundary. */
  notices: (owner: string) => Message[];
  /** A message joined a history: a notice in it delivers its jobs. */
  confirm: (message: Message) => void;
  /** Stops what `owner` started: it cannot outlive its run. */
  stopOwnedBy: (owner: string) => void;
  /** The job's run started (no event) or reported one, before the event is published (the stall watch). */
  onProgress?: (job: JobRecord, event?: LoopEvent) => void;
}

/**
 * Runs sub-agent jobs under the queue: a new one, or one resumed with its history and a
 * message. Each run has its own controller, and its end decides the job's state (a stop
 * decided it already).
 */
export class JobRuns {
  constructor(private readonly ctx: JobRunsContext) {}

  /** Puts a job (new, or resumed with `resume`) under the queue with a fresh controller and promises. */
  enqueue(
    job: JobRecord,
    resume: Message[] | undefined,
    after?: Promise<unknown>,
    attach?: { remoteId: string; cursor?: string },
  ): void {
    job.controller = new AbortController();
    job.inbox = [];
    job.finished = new Promise<void>((resolve) => {
      job.markFinished = resolve;
    });
    let ran = false;
    let markSettled = () => {};
    job.settled = new Promise<void>((resolve) => {
      markSettled = resolve;
    });
    this.ctx.table.emitState(job);
    const { signal } = job.controller;
    const remote = this.ctx.remoteQueue;
    const queue = remote?.runsRemotely(job) ? remote.queue : this.ctx.queue;
    const add = () =>
      queue
        .add(
          () => {
            ran = true;
            return this.runJob(job, resume, attach).finally(markSettled);
          },
          { signal },
        )
        .catch(() => {
          // p-queue rejects on abort; a job stopped while queued never ran, so it is settled now.
          if (!ran) markSettled();
        });
    // A new job takes a free slot in this very call; a resumed one waits for its last run to return.
    if (after) void after.then(add);
    else void add();
  }

  private async runJob(
    job: JobRecord,
    resume: Message[] | undefined,
    attach: { remoteId: string; cursor?: string } | undefined,
  ): Promise<void> {
    const { ctx } = this;
    if (job.controller.signal.aborted) return;
    job.state = 'running';
    // A job attached again keeps the time it started on its worker.
    if (!attach || job.startedAt === undefined) job.startedAt = ctx.now();
    ctx.onProgress?.(job);
    ctx.table.emitState(job);
    let outcome: ChildOutcome;
    try {
      outcome = await ctx.run({
        id: job.id,
        task: job.task,
        instructions: job.instructions,
        definition: job.definition,
        mode: job.mode,
        fork: job.fork,
        resume,
        // Between steps: messages sent to it, then the notice of its own jobs that completed.
        takeInbox: () => [...job.inbox.splice(0), ...ctx.notices(job.id)],
        takeMessages: () => job.inbox.splice(0),
        onMessage: (message) => ctx.confirm(message),
        depth: job.depth ?? depthOfId(job.id),
        ...(job.model ? { model: job.model } : {}),
        ...(job.effort ? { effort: job.effort } : {}),
        ...(job.budget ? { budget: job.budget } : {}),
        admitCall: (request) => ctx.admitCall?.(job.id, request) ?? { release: () => {} },
        signal: job.controller.signal,
        onEvent: (event) => this.onChildEvent(job, event),
        ...(job.where ? { where: job.where } : {}),
        ...(attach ? { attach } : {}),
        // Written to the store at once: a session that crashes now can attach to it again.
        onRemote: (facts) => {
          Object.assign(job, facts);
          if ((job.state as JobState) === 'running') ctx.table.emitState(job);
        },
      });
    } catch (error) {
      // The session quits and the job goes on on its worker: it stays running in the store.
      if (error instanceof DetachedRun) {
        job.detached = true;
        return;
      }
      outcome = { status: 'error', text: NO_TEXT_OUTPUT, error: error instanceof Error ? error.message : String(error) };
    }
    // Kept even when stopped: a stopped job can be resumed by a message.
    if (outcome.messages) job.history = outcome.messages;
    // What it started cannot outlive its run: nobody would read it.
    ctx.stopOwnedBy(job.id);
    // Aborted overrides whatever the run produced (TypeScript cannot see the stop in between).
    if ((job.state as JobState) === 'aborted') return;
    job.state = job.failure ? 'error' : outcome.status;
    job.result = outcome.text;
    job.error = job.failure ?? outcome.error;
    job.failure = undefined;
    job.endedAt = ctx.now();
    ctx.delivery.ended(job.id);
    ctx.table.finish(job);
  }

  private onChildEvent(job: JobRecord, event: LoopEvent): void {
    if (job.state === 'aborted') return;
    switch (event.type) {
      case 'turn_start':
        // Counted, not copied: a nudge or a resumed run starts its own loop at turn 1 again.
        job.turns += 1;
        break;
      case 'tool_start':
        job.toolCalls += 1;
        break;
      case 'usage':
        job.usage = addUsage(job.usage, event.usage);
        job.contextTokens = usageTokens(event.usage);
        this.ctx.onUsage?.(job.id, event.usage);
        break;
      default:
        break;
    }
    this.ctx.onProgress?.(job, event);
    this.ctx.table.emitEvent(job, event);
  }
}
