import PQueue from 'p-queue';
import type { LoopEvent } from '../loop/events.js';
import { type Message, type ToolUseBlock, addUsage, emptyUsage } from '../providers/types.js';
import { DeliveryTracker } from './delivery.js';
import { type JobRecord, type RestoredJob, isEnded, newRecord, snapshotOf, waitForEnd } from './job-record.js';
import { NO_TEXT_OUTPUT, completionNotice, describePoll } from './job-texts.js';
import { compareJobIds, depthOfId, kindOf, normalizeJobId, subJobId } from './job-ids.js';
import { SHELL_POLL_WAIT_MS, describeShellPoll, newShellJob, shellAlreadyEnded, waitForShell } from './shell-job.js';
import type { ShellOutput } from './shell-output.js';
import type { ShellHandle } from '../tools/shell-process.js';
import type { ShellStart } from '../tools/shell-host.js';
import type {
  ChildOutcome,
  Job,
  JobManagerOptions,
  JobState,
  MessageSender,
  PollResult,
  SendResult,
  StartOptions,
  Timers,
} from './job-types.js';

export { isEnded } from './job-record.js';
export type { RestoredJob } from './job-record.js';
export type {
  ChildOutcome,
  ChildRunRequest,
  ChildRunner,
  ForkSnapshot,
  Job,
  JobEvent,
  JobManagerOptions,
  JobState,
  MessageSender,
  PollResult,
  SendResult,
  StartOptions,
  Timers,
} from './job-types.js';

/** A problem the model made (unknown id, finished job): the tool turns it into an error result. */
export class JobError extends Error {
  override name = 'JobError';
}

const CLOSE_GRACE_MS = 2000;
/** The share of a cap from which a job is near it. */
export const BUDGET_WARNING = 0.8;

/** Owns every sub-agent job of one session: spawning, the bound, polls, delivery, stopping. */
export class JobManager {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly queue: PQueue;
  private readonly delivery = new DeliveryTracker();
  private readonly reservations = new Map<string, number>();
  private nextNumber: number;
  /** Shell numbers (`sh-N`), and the numbers each job has given its own children (`sub-2.N`). */
  private nextShell = 1;
  private readonly childNumbers = new Map<string, number>();
  private closed = false;
  private readonly now: () => number;
  private readonly timers: Timers;

  constructor(private readonly options: JobManagerOptions) {
    this.queue = new PQueue({ concurrency: options.maxConcurrent ?? 4 });
    this.nextNumber = options.firstNumber ?? 1;
    this.now = options.now ?? Date.now;
    this.timers = options.timers ?? {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    };
  }

  /**
   * Hands out id numbers for every agent_start of one tool batch in the order the model
   * wrote them, before any runs. A new batch drops reservations whose call never ran.
   */
  reserve(calls: ToolUseBlock[]): void {
    this.reservations.clear();
    for (const call of calls) {
      if (call.name === 'agent_start') this.reservations.set(call.id, this.nextNumber++);
    }
  }

  /** Queues one job and returns its snapshot at once. */
  start(task: string, options: StartOptions = {}): Job {
    if (this.closed) throw new JobError('the session is closing; no new sub-agents can start');
    const refusal = this.options.admission?.();
    if (refusal) throw new JobError(refusal);
    const definition = options.agent ?? this.options.defaultAgent ?? 'explore';
    const known = this.options.definitions?.();
    if (known && !known.includes(definition)) {
      throw new JobError(`unknown agent "${definition}". Available agents: ${known.join(', ')}.`);
    }
    const mode = options.mode ?? 'typed';
    const owner = options.owner ? this.find(options.owner) : undefined;
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
    const reserved = !owner && options.callId !== undefined ? this.reservations.get(options.callId) : undefined;
    if (!owner && options.callId !== undefined) this.reservations.delete(options.callId);
    const number = owner ? this.nextChildNumber(owner.id) : (reserved ?? this.nextNumber++);
    const id = subJobId(owner?.id, number);
    const choice = this.options.modelFor?.(definition, options.model);
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
        ...(options.budget ? { budget: { ...options.budget } } : {}),
        ...(options.callId !== undefined ? { callId: options.callId } : {}),
        ...(owner ? { owner: owner.id, depth } : {}),
        ...(choice ? { model: choice.model, ...(choice.refused ? { modelRefused: choice.refused } : {}) } : {}),
        ...(options.isolation ? { isolation: options.isolation } : {}),
      },
      { fork, instructions: options.instructions },
    );
    this.jobs.set(id, job);
    this.enqueue(job, undefined);
    return this.snapshot(job);
  }

  /**
   * A message for a job. Running: it joins the job's history at its next step boundary.
   * Queued: it joins the task. Ended (done, failed or stopped): the job runs again, same
   * id, with its whole history and the message, and owes a completion again.
   */
  send(idOrNumber: string, text: string, from: MessageSender = 'parent'): SendResult {
    const job = this.find(idOrNumber);
    if (job.shell) throw new JobError(`${job.id} is a background shell: it reads no messages (its stdin is closed)`);
    const body = text.trim();
    if (!body) throw new JobError('the message is empty: say what the sub-agent should do');
    const message: Message = {
      role: 'user',
      content: [
        { type: 'text', text: `${from === 'user' ? 'Message from the user' : 'Message from the parent agent'}:\n${body}` },
      ],
    };
    const addToTask = () => {
      job.task = `${job.task}\n\n${from === 'user' ? 'The user adds' : 'The parent adds'}: ${body}`;
    };
    if (job.state === 'queued') {
      addToTask();
      this.emitState(job);
      return { kind: 'task', job: this.snapshot(job) };
    }
    if (job.state === 'running') {
      job.inbox.push(message);
      return { kind: 'inbox', job: this.snapshot(job) };
    }
    if (this.closed) throw new JobError('the session is closing; no sub-agent can be resumed');
    const refusal = this.options.admission?.();
    if (refusal) throw new JobError(refusal);
    // A job stopped before it ran (or whose run left nothing) starts over, the message added to its task.
    const resume = job.history ? [...job.history, message] : undefined;
    if (!resume) addToTask();
    job.state = 'queued';
    job.startedAt = undefined;
    job.endedAt = undefined;
    job.result = undefined;
    job.error = undefined;
    this.delivery.reopen(job.id);
    // A stopped run may still be winding down: the new one starts once it has returned.
    const previous = job.settled;
    this.enqueue(job, resume, previous);
    return { kind: 'resumed', job: this.snapshot(job) };
  }

  /** Takes in the jobs of a session's earlier runs: finished, delivered, ready to be resumed by a message. */
  restore(stored: readonly RestoredJob[]): void {
    for (const { job, messages } of stored) {
      if (this.jobs.has(job.id)) continue;
      this.jobs.set(job.id, newRecord(job, { history: messages }));
      this.delivery.claim(job.id);
      this.nextNumber = Math.max(this.nextNumber, job.number + 1);
    }
  }

  /** Waits until the job ends, the poll timeout passes, or `signal` aborts. */
  async poll(idOrNumber: string, signal: AbortSignal): Promise<PollResult> {
    const job = this.find(idOrNumber);
    if (job.shell) return this.pollShell(job, job.shell, signal);
    if (isEnded(job.state)) {
      if (this.delivery.claim(job.id)) this.emitDelivered([job.id], 'poll');
      return { kind: 'ended', job: this.snapshot(job) };
    }
    this.delivery.pollStarted(job.id);
    const outcome = await waitForEnd(job, { timers: this.timers, timeoutMs: this.options.pollTimeoutMs ?? 600_000, signal });
    // A job that ended in the same tick as a timeout is returned, not left for a notice.
    const ended = isEnded(job.state) && outcome !== 'interrupted';
    if (this.delivery.pollEnded(job.id, ended)) this.emitDelivered([job.id], 'poll');
    if (ended) return { kind: 'ended', job: this.snapshot(job) };
    return { kind: outcome === 'interrupted' ? 'interrupted' : 'running', job: this.snapshot(job) };
  }

  /** Stops a queued or running job; a finished one is an error. */
  stop(idOrNumber: string): Job {
    const job = this.find(idOrNumber);
    if (isEnded(job.state)) {
      throw new JobError(job.shell ? shellAlreadyEnded(job) : `sub-agent ${job.id} already finished (${job.state})`);
    }
    this.abort(job);
    return this.snapshot(job);
  }

  /**
   * Keeps a running command as a background shell job `sh-N` (bash's run_in_background, or a
   * foreground call moved there). It takes no queue slot; its end is announced to its owner
   * like a sub-agent's, and it is stopped with its owner.
   */
  adoptShell(handle: ShellHandle, start: ShellStart): Job {
    if (this.closed) throw new JobError('the session is closing; no background shell can start');
    const owner = start.owner !== undefined ? this.jobs.get(start.owner) : undefined;
    const job = newShellJob(handle, {
      command: start.command,
      number: this.nextShell++,
      owner: owner && { id: owner.id, depth: owner.depth ?? depthOfId(owner.id) },
      now: this.now,
      onLine: (line) =>
        this.options.emit?.({
          type: 'job_event',
          jobId: job.id,
          event: { type: 'tool_update', id: job.id, name: 'bash', text: line },
        }),
      onExit: () => {
        this.delivery.ended(job.id);
        this.finish(job);
      },
    });
    this.jobs.set(job.id, job);
    this.emitState(job);
    return this.snapshot(job);
  }

  /**
   * Ends a running job as failed (a budget cap): its run is stopped, and what it wrote so
   * far is its result. Unlike a stop, the parent hears of it.
   */
  fail(idOrNumber: string, reason: string): void {
    const job = this.find(idOrNumber);
    if (isEnded(job.state) || job.failure) return;
    if (job.state === 'queued') {
      this.abort(job);
      return;
    }
    job.failure = reason;
    job.controller.abort(new Error(reason));
  }

  /**
   * How much of its caps a job's subtree has used (the largest fraction). Told to front ends
   * when it first reaches 80 %, so a row can warn before the cap stops the job.
   */
  noteBudget(idOrNumber: string, fraction: number): void {
    const job = this.find(idOrNumber);
    const before = job.budgetUsed ?? 0;
    job.budgetUsed = fraction;
    if (before < BUDGET_WARNING && fraction >= BUDGET_WARNING && !isEnded(job.state)) this.emitState(job);
  }

  /** Stops every queued and running job; returns how many. */
  stopAll(): number {
    let count = 0;
    for (const job of this.jobs.values()) {
      if (isEnded(job.state)) continue;
      this.abort(job);
      count += 1;
    }
    return count;
  }

  /** Every job in tree order: each after its owner, sub-agents before shells. */
  list(): Job[] {
    return [...this.jobs.values()].sort((a, b) => compareJobIds(a.id, b.id)).map((job) => this.snapshot(job));
  }

  get(idOrNumber: string): Job {
    return this.snapshot(this.find(idOrNumber));
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
    const ids = this.delivery.takeBatch(compareJobIds, (id) => this.jobs.get(id)?.owner === owner);
    if (ids.length === 0) return [];
    return [{ role: 'user', content: [{ type: 'text', text: completionNotice(ids) }], noticeFor: ids }];
  }

  /**
   * A message joined the parent's history: if it is a completion notice, its jobs were
   * delivered. Known by the ids it carries, not by object identity, so a copy counts too.
   */
  confirm(message: Message): void {
    if (!message.noticeFor?.length) return;
    const confirmed = this.delivery.confirm(message.noticeFor);
    if (confirmed.length) this.emitDelivered(confirmed, 'notice');
  }

  /** The parent turn (or `owner`'s run) was interrupted: its notices not yet sent stay pending. */
  interrupted(owner?: string): void {
    this.delivery.interrupted((id) => this.jobs.get(id)?.owner === owner);
  }

  /** Ids of the parent's jobs (or `owner`'s) that ended done or error and have not reached it yet. */
  undelivered(owner?: string): string[] {
    return this.delivery
      .owed()
      .filter((id) => this.jobs.get(id)?.owner === owner)
      .sort(compareJobIds);
  }

  /**
   * Resolves when no sub-agent is queued or running. Background shells are not waited for: a
   * server runs until it is stopped.
   */
  async idle(signal?: AbortSignal): Promise<void> {
    const waits = [...this.jobs.values()].filter((j) => !isEnded(j.state) && !j.shell).map((j) => j.finished);
    if (waits.length === 0) return;
    await Promise.race([
      Promise.all(waits),
      new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true })),
    ]);
    if (!signal?.aborted && this.active().some((job) => kindOf(job) === 'sub')) await this.idle(signal);
  }

  /** Stops everything and waits up to 2 s for the runs to wind down. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopAll();
    const running = [...this.jobs.values()].map((job) => job.settled);
    let handle: unknown;
    await Promise.race([
      Promise.all(running),
      new Promise<void>((resolve) => {
        handle = this.timers.setTimeout(resolve, CLOSE_GRACE_MS);
      }),
    ]);
    this.timers.clearTimeout(handle);
    this.queue.clear();
  }

  /** The tool result text of a poll, as the spec words it. */
  describePoll(result: PollResult): { content: string; isError: boolean } {
    return kindOf(result.job) === 'shell' ? describeShellPoll(result, this.now()) : describePoll(result, this.now());
  }

  /**
   * A shell's poll: what it printed since the last one. Returns at once when there is new
   * output or it ended; else waits up to 30 s (or the poll timeout) for either.
   */
  private async pollShell(job: JobRecord, output: ShellOutput, signal: AbortSignal): Promise<PollResult> {
    if (!isEnded(job.state) && !output.pending()) {
      this.delivery.pollStarted(job.id);
      const timeoutMs = Math.min(SHELL_POLL_WAIT_MS, this.options.pollTimeoutMs ?? SHELL_POLL_WAIT_MS);
      const outcome = await waitForShell({ finished: job.finished, output }, { timers: this.timers, timeoutMs, signal });
      const ended = isEnded(job.state) && outcome !== 'interrupted';
      if (this.delivery.pollEnded(job.id, ended)) this.emitDelivered([job.id], 'poll');
      if (outcome === 'interrupted') return { kind: 'interrupted', job: this.snapshot(job) };
    } else if (isEnded(job.state) && this.delivery.claim(job.id)) {
      this.emitDelivered([job.id], 'poll');
    }
    return { kind: isEnded(job.state) ? 'ended' : 'running', job: this.snapshot(job), output: output.take() };
  }

  /** Puts a job (new, or resumed with `resume`) under the queue with a fresh controller and promises. */
  private enqueue(job: JobRecord, resume: Message[] | undefined, after?: Promise<unknown>): void {
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
    this.emitState(job);
    const { signal } = job.controller;
    const add = () =>
      this.queue
        .add(
          () => {
            ran = true;
            return this.runJob(job, resume).finally(markSettled);
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

  private async runJob(job: JobRecord, resume: Message[] | undefined): Promise<void> {
    if (job.controller.signal.aborted) return;
    job.state = 'running';
    job.startedAt = this.now();
    this.emitState(job);
    let outcome: ChildOutcome;
    try {
      outcome = await this.options.run({
        id: job.id,
        task: job.task,
        instructions: job.instructions,
        definition: job.definition,
        mode: job.mode,
        fork: job.fork,
        resume,
        // Between steps: messages sent to it, then the notice of its own jobs that completed.
        takeInbox: () => [...job.inbox.splice(0), ...this.boundaryMessages(job.id)],
        onMessage: (message) => this.confirm(message),
        depth: job.depth ?? depthOfId(job.id),
        ...(job.model ? { model: job.model } : {}),
        signal: job.controller.signal,
        onEvent: (event) => this.onChildEvent(job, event),
      });
    } catch (error) {
      outcome = { status: 'error', text: NO_TEXT_OUTPUT, error: error instanceof Error ? error.message : String(error) };
    }
    // Kept even when stopped: a stopped job can be resumed by a message.
    if (outcome.messages) job.history = outcome.messages;
    // What it started cannot outlive its run: nobody would read it.
    this.stopOwnedBy(job.id);
    // Aborted overrides whatever the run produced (TypeScript cannot see the stop in between).
    if ((job.state as JobState) === 'aborted') return;
    job.state = job.failure ? 'error' : outcome.status;
    job.result = outcome.text;
    job.error = job.failure ?? outcome.error;
    job.failure = undefined;
    job.endedAt = this.now();
    this.delivery.ended(job.id);
    this.finish(job);
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
        job.contextTokens = event.usage.input + event.usage.cacheRead + event.usage.cacheWrite + event.usage.output;
        this.options.onUsage?.(job.id, event.usage);
        break;
      default:
        break;
    }
    this.options.emit?.({ type: 'job_event', jobId: job.id, event });
  }

  /** Stops a job, its subtree first (deepest first), and its shells with it. */
  private abort(job: JobRecord): void {
    this.stopOwnedBy(job.id);
    job.state = 'aborted';
    job.endedAt = this.now();
    job.controller.abort(new Error(`sub-agent ${job.id} was stopped`));
    job.shell?.handle.stop('abort');
    this.finish(job);
  }

  /** Stops every job `owner` started (their own first); those that ended are owed to nobody now. */
  private stopOwnedBy(owner: string): void {
    for (const child of [...this.jobs.values()].filter((j) => j.owner === owner).sort((a, b) => compareJobIds(b.id, a.id))) {
      if (!isEnded(child.state)) this.abort(child);
      this.delivery.claim(child.id);
    }
  }

  private nextChildNumber(owner: string): number {
    const next = (this.childNumbers.get(owner) ?? 0) + 1;
    this.childNumbers.set(owner, next);
    return next;
  }

  private finish(job: JobRecord): void {
    job.markFinished();
    this.emitState(job);
  }

  private emitState(job: JobRecord): void {
    this.options.emit?.({ type: 'job_state', job: this.snapshot(job) });
  }

  private emitDelivered(jobIds: string[], via: 'notice' | 'poll'): void {
    this.options.emit?.({ type: 'job_delivered', jobIds, via });
  }

  private find(idOrNumber: string): JobRecord {
    const job = this.jobs.get(normalizeJobId(idOrNumber));
    if (!job) {
      const known = this.list().map((j) => j.id);
      throw new JobError(
        `unknown sub-agent id "${idOrNumber}". ${known.length ? `Known ids: ${known.join(', ')}.` : 'No sub-agents have been started.'}`,
      );
    }
    return job;
  }

  private snapshot(job: JobRecord): Job {
    return snapshotOf(job);
  }
}
