import PQueue from 'p-queue';
import { type Message, type ToolUseBlock, type Usage, emptyUsage } from '../providers/types.js';
import type { ShellStart } from '../tools/shell-host.js';
import type { ShellHandle } from '../tools/shell-process.js';
import { BUDGET_WARNING } from './budget.js';
import { DeliveryTracker } from './delivery.js';
import { startCaps } from './job-caps.js';
import { JobDependencies } from './job-dependencies.js';
import { JobError } from './job-error.js';
import { compareJobIds, depthOfId, kindOf, subJobId } from './job-ids.js';
import { messageSubJob } from './job-messages.js';
import { JobNumbers } from './job-numbers.js';
import { type StoredJob, isEnded, newRecord, snapshotOf } from './job-record.js';
import { pollSubJob } from './job-poll.js';
import { JobRuns } from './job-runs.js';
import { type StopContext, abortJob, closeJobs, stopOwnedBy } from './job-stopping.js';
import { JobTable } from './job-table.js';
import { restoreJobs } from './job-restore.js';
import { deliveryNotice } from './interrupted.js';
import { describePoll } from './job-texts.js';
import { describeShellPoll, shellAlreadyEnded } from './shell-job.js';
import { ShellJobs } from './shell-jobs.js';
import { DEFAULT_STALL_NOTICE_MS, StallWatch } from './stall-watch.js';
import { realTimers } from '../platform/timers.js';
import type {
  BudgetVerdict,
  Job,
  JobManagerOptions,
  MessageSender,
  PollResult,
  SendResult,
  StartOptions,
  Timers,
} from './job-types.js';

export { JobError } from './job-error.js';
export { isEnded } from './job-record.js';
export type { StoredJob } from './job-record.js';
export type {
  ChildOutcome,
  ChildRunRequest,
  ChildRunner,
  ForkSnapshot,
  Job,
  JobEvent,
  JobManagerOptions,
  JobState,
  SendResult,
  Timers,
} from './job-types.js';

/**
 * Owns every job of one session — sub-agents and background shells: spawning, the bound,
 * polls, delivery, stopping. The parts live beside it: numbering (`job-numbers.ts`), the
 * table and its events (`job-table.ts`), runs (`job-runs.ts`), messages (`job-messages.ts`),
 * shells (`shell-jobs.ts`), stopping subtrees (`job-stopping.ts`).
 */
export class JobManager {
  private readonly table: JobTable;
  private readonly queue: PQueue;
  private readonly delivery = new DeliveryTracker();
  private readonly numbers: JobNumbers;
  private readonly runs: JobRuns;
  private readonly shells: ShellJobs;
  private readonly stopping: StopContext;
  /** Jobs that wait for jobs (agent_start's `after`): `dependantsOf(id)` are stopped with it. */
  readonly dependencies: JobDependencies;
  /** Running sub-agents with no event for a while (`whileAsking`: one waiting for the user is not stalled). */
  readonly stalls: StallWatch;
  private closed = false;
  /** The session budget was found spent (said once; what ran then was stopped). */
  private budgetSpent = false;
  /** Budget notes for the parent's next step boundary. */
  private readonly budgetNotes: string[] = [];
  private readonly now: () => number;
  private readonly timers: Timers;

  constructor(private readonly options: JobManagerOptions) {
    this.queue = new PQueue({ concurrency: options.maxConcurrent ?? 4 });
    this.numbers = new JobNumbers(options.firstNumber ?? 1);
    this.now = options.now ?? Date.now;
    this.timers = options.timers ?? realTimers;
    this.table = new JobTable(options.emit);
    this.stopping = { table: this.table, delivery: this.delivery, now: this.now };
    this.dependencies = new JobDependencies(this.stopping);
    const stallMs = options.stallNoticeMs ?? DEFAULT_STALL_NOTICE_MS;
    this.stalls = new StallWatch({ table: this.table, now: this.now, timers: this.timers, afterMs: stallMs });
    const remote = options.remote;
    this.runs = new JobRuns({
      queue: this.queue,
      ...(remote
        ? { remoteQueue: { queue: new PQueue({ concurrency: remote.concurrency ?? 64 }), runsRemotely: remote.runsRemotely } }
        : {}),
      run: options.run,
      table: this.table,
      delivery: this.delivery,
      now: this.now,
      onUsage: (jobId, usage) => this.countUsage(jobId, usage),
      admitCall: (jobId, request) => options.budget?.admitCall?.(jobId, request, this.list()),
      notices: (owner) => this.boundaryMessages(owner),
      confirm: (message) => this.confirm(message),
      stopOwnedBy: (owner) => stopOwnedBy(this.stopping, owner),
      onProgress: (job, event) => this.stalls.progressed(job, event),
    });
    this.shells = new ShellJobs({
      table: this.table,
      delivery: this.delivery,
      numbers: this.numbers,
      now: this.now,
      timers: this.timers,
      pollTimeoutMs: options.pollTimeoutMs,
    });
  }

  /**
   * Hands out id numbers for every agent_start of one tool batch in the order the model
   * wrote them, before any runs. A new batch drops reservations whose call never ran.
   */
  reserve(calls: ToolUseBlock[]): void {
    this.numbers.reserve(calls);
  }

  /** Queues one job and returns its snapshot at once. */
  start(task: string, options: StartOptions = {}): Job {
    if (this.closed) throw new JobError('the session is closing; no new sub-agents can start');
    const refusal = this.options.budget?.admission(this.list());
    if (refusal) throw new JobError(refusal);
    const definition = options.agent ?? this.options.defaultAgent ?? 'explore';
    const known = this.options.definitions?.();
    if (known && !known.includes(definition)) {
      throw new JobError(`unknown agent "${definition}". Available agents: ${known.join(', ')}.`);
    }
    const mode = options.mode ?? 'typed';
    const owner = options.owner ? this.table.find(options.owner) : undefined;
    const depth = owner ? (owner.depth ?? depthOfId(owner.id)) + 1 : 1;
    if (depth > (this.options.maxDepth ?? 1)) {
      throw new JobError(
        `sub-agents may nest ${this.options.maxDepth ?? 1} level(s) deep here; do the task yourself (the user can raise agents.maxAgentDepth, up to 3)`,
      );
    }
    if (mode === 'fork' && owner) throw new JobError('a sub-agent cannot fork; start its sub-agent without mode "fork"');
    if (mode === 'fork' && !this.options.forkSnapshot) {
      throw new JobError('fork mode is not available here; start the sub-agent without mode "fork"');
    }
    // A fork sees the conversation as it is now, whenever a slot frees up for it.
    const fork = mode === 'fork' ? this.options.forkSnapshot?.() : undefined;
    const number = owner ? this.numbers.forChild(owner.id) : this.numbers.forStart(options.callId);
    const id = subJobId(owner?.id, number);
    const after = options.after?.length ? this.dependencies.check(options.after, id, owner?.id) : undefined;
    const choice = this.options.modelFor?.(definition, options.model);
    const caps = startCaps(this.options, { definition, owner, model: choice?.model, asked: options.budget }, this.list());
    const job = newRecord(
      {
        id,
        number,
        state: 'queued',
        definition,
        mode,
        task,
        createdAt: this.now(),
        turns: 0,
        toolCalls: 0,
        contextTokens: 0,
        usage: emptyUsage(),
        ...(caps ? { budget: caps } : {}),
        ...(options.callId !== undefined ? { callId: options.callId } : {}),
        ...(owner ? { owner: owner.id, depth } : {}),
        ...(choice ? { model: choice.model, ...(choice.refused ? { modelRefused: choice.refused } : {}) } : {}),
        ...(choice?.effort ? { effort: choice.effort } : {}),
        ...(options.isolation ? { isolation: options.isolation } : {}),
        ...(options.where ? { where: options.where } : {}),
        ...(after ? { after } : {}),
      },
      { fork, instructions: options.instructions },
    );
    this.table.add(job);
    // One that waits for others takes no place in the queue until they are done.
    this.runs.enqueue(job, undefined, after ? this.dependencies.hold(job) : undefined);
    return snapshotOf(job);
  }

  /**
   * A message for a job. Running: it joins the job's history at its next step boundary.
   * Queued: it joins the task. Ended (done, failed or stopped): the job runs again, same
   * id, with its whole history and the message, and owes a completion again. A background
   * shell: it is written to its stdin, with a newline.
   */
  send(idOrNumber: string, text: string, from: MessageSender = 'parent'): SendResult {
    const job = this.table.find(idOrNumber);
    // A background shell: the message goes to its stdin.
    if (kindOf(job) === 'shell') return this.shells.write(job, text);
    return messageSubJob(
      {
        table: this.table,
        delivery: this.delivery,
        runs: this.runs,
        closed: () => this.closed,
        admission: () => this.options.budget?.admission(this.list()),
        dependencies: this.dependencies,
      },
      job,
      text,
      from,
    );
  }

  /**
   * Takes in the jobs of a session's earlier runs: ended, listed. One the store says is `owed`
   * (it ended, or a crash cut it off, and the model never heard) is announced once at the next
   * boundary; the others are settled. A sub-agent (nested ones too) can be resumed by a
   * message; a shell cannot. New jobs are numbered after them and after `takenIds` (ids whose
   * files could not be read back).
   */
  restore(stored: readonly StoredJob[], options: { takenIds?: readonly string[] } = {}): void {
    restoreJobs(
      {
        numbers: this.numbers,
        table: this.table,
        delivery: this.delivery,
        runs: this.runs,
        queue: this.options.remote !== undefined,
      },
      stored,
      options.takenIds ?? [],
    );
  }

  /** Waits until the job ends, the poll timeout passes, or `signal` aborts. */
  async poll(idOrNumber: string, signal: AbortSignal): Promise<PollResult> {
    const job = this.table.find(idOrNumber);
    if (job.shell) return this.shells.poll(job, job.shell, signal);
    const { table, delivery, timers } = this;
    return pollSubJob({ table, delivery, timers, timeoutMs: this.options.pollTimeoutMs ?? 600_000 }, job, signal);
  }

  /** Stops a queued or running job; a finished one is an error. */
  stop(idOrNumber: string): Job {
    const job = this.table.find(idOrNumber);
    if (isEnded(job.state)) {
      throw new JobError(
        kindOf(job) === 'shell' ? shellAlreadyEnded(job) : `sub-agent ${job.id} already finished (${job.state})`,
      );
    }
    abortJob(this.stopping, job);
    return snapshotOf(job);
  }

  /**
   * Keeps a running command as a background shell job `sh-N` (bash's run_in_background, or a
   * foreground call moved there). It takes no queue slot; its end is announced to its owner
   * like a sub-agent's, and it is stopped with its owner.
   */
  adoptShell(handle: ShellHandle, start: ShellStart): Job {
    if (this.closed) throw new JobError('the session is closing; no background shell can start');
    return snapshotOf(this.shells.adopt(handle, start));
  }

  /** A job's usage: the budget counts it and judges the caps; its verdict is carried out here. */
  private countUsage(jobId: string, usage: Usage): void {
    if (this.options.budget) this.carryOut(this.options.budget.record(jobId, usage, this.list()));
  }

  /**
   * Jobs near a cap are marked, jobs past one fail, and a spent session budget stops every
   * job, once, with a note for the parent and an event for the front ends.
   */
  private carryOut(verdict: BudgetVerdict): void {
    for (const { id, fraction } of verdict.shares) this.noteBudget(id, fraction);
    for (const { id, reason } of verdict.failed) this.fail(id, reason);
    const spent = verdict.spent;
    if (!spent || this.budgetSpent) return;
    this.budgetSpent = true;
    const stopped = this.active().map((job) => job.id);
    this.stopAll();
    const what = spent.limit === 'tokens' ? 'Token' : 'Cost';
    this.budgetNotes.push(`${what} budget reached: ${spent.message}${stopped.length ? ` Stopped ${stopped.join(', ')}.` : ''}`);
    this.options.emit?.({ type: 'budget_reached', limit: spent.limit, budget: spent.budget, used: spent.used, stopped });
  }

  /**
   * Ends a running job as failed (a budget cap): its run is stopped, and what it wrote so
   * far is its result. Unlike a stop, the parent hears of it.
   */
  fail(idOrNumber: string, reason: string): void {
    const job = this.table.find(idOrNumber);
    if (isEnded(job.state) || job.failure) return;
    if (job.state === 'queued') {
      abortJob(this.stopping, job);
      return;
    }
    job.failure = reason;
    job.controller.abort(new Error(reason));
  }

  /**
   * How much of its caps a job's subtree has used (the largest fraction). Told to front ends
   * when it first reaches 80 %, so a row can warn before the cap stops the job.
   */
  private noteBudget(idOrNumber: string, fraction: number): void {
    const job = this.table.find(idOrNumber);
    const before = job.budgetUsed ?? 0;
    job.budgetUsed = fraction;
    if (before < BUDGET_WARNING && fraction >= BUDGET_WARNING && !isEnded(job.state)) this.table.emitState(job);
  }

  /** Stops every queued and running job; returns how many. */
  stopAll(): number {
    const targets = this.table.records().filter((job) => !isEnded(job.state) && !job.detached);
    // A job waiting for one stopped before it ends with it (naming it): counted all the same.
    for (const job of targets) if (!isEnded(job.state)) abortJob(this.stopping, job);
    return targets.length;
  }

  /** Every job in tree order: each after its owner, sub-agents before shells. */
  list(): Job[] {
    return this.table.list();
  }

  get(idOrNumber: string): Job {
    return snapshotOf(this.table.find(idOrNumber));
  }

  /** Jobs still queued or running. */
  active(): Job[] {
    return this.list().filter((job) => !isEnded(job.state));
  }

  /**
   * The batched completion notice for a step boundary or the start of a user turn, or
   * nothing. Ids it names are in flight until the message joins the history (`confirm`).
   */
  boundaryMessages(owner?: string): Message[] {
    const stalls = this.stalls.messages((job) => this.table.recipientOf(job.id) === owner);
    const notes = [...(owner === undefined ? this.parentBudgetNotes() : []), ...stalls];
    const ids = this.delivery.takeBatch(compareJobIds, (id) => this.table.recipientOf(id) === owner);
    if (ids.length === 0) return notes;
    const text = deliveryNotice(ids.map((id) => snapshotOf(this.table.find(id))));
    return [...notes, { role: 'user', content: [{ type: 'text', text }], noticeFor: ids }];
  }

  /** The parent's own usage is settled at its step boundary: the session budget is judged then too. */
  private parentBudgetNotes(): Message[] {
    if (this.options.budget) this.carryOut(this.options.budget.atBoundary(this.list()));
    return this.budgetNotes.splice(0).map((text) => ({ role: 'user', content: [{ type: 'text', text }] }));
  }

  /**
   * A message joined the parent's history: if it is a completion notice, its jobs were
   * delivered. Known by the ids it carries, not by object identity, so a copy counts too.
   */
  confirm(message: Message): void {
    if (!message.noticeFor?.length) return;
    const confirmed = this.delivery.confirm(message.noticeFor);
    if (confirmed.length) this.table.emitDelivered(confirmed, 'notice');
  }

  /** The parent turn (or `owner`'s run) was interrupted: its notices not yet sent stay pending. */
  interrupted(owner?: string): void {
    this.delivery.interrupted((id) => this.table.recipientOf(id) === owner);
  }

  /** Ids of the parent's jobs (or `owner`'s) that ended done or error and have not reached it yet. */
  undelivered(owner?: string): string[] {
    return this.delivery
      .owed()
      .filter((id) => this.table.recipientOf(id) === owner)
      .sort(compareJobIds);
  }

  /**
   * Resolves when no sub-agent is queued or running. Background shells are not waited for: a
   * server runs until it is stopped.
   */
  idle(signal?: AbortSignal): Promise<void> {
    return this.table.idle(signal);
  }

  /**
   * Stops everything and waits up to 2 s for the runs to wind down. Queue jobs are let go
   * first: they go on on their workers, running in the store, to be followed again.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.stalls.dispose();
    await closeJobs({
      records: () => this.table.records(),
      detach: this.options.remote?.detach,
      stopAll: () => this.stopAll(),
      timers: this.timers,
    });
    this.queue.clear();
  }

  /** The tool result text of a poll, as the spec words it. */
  describePoll(result: PollResult): { content: string; isError: boolean } {
    return kindOf(result.job) === 'shell' ? describeShellPoll(result, this.now()) : describePoll(result, this.now());
  }
}
