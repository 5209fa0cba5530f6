/**
 * The session's view of one remote job: it reads the job's `out` entries in order and turns
 * them into what a local child run gives the job manager (its events, its messages as they
 * join its history, the worker's name, and one outcome). It also settles the job when the
 * worker cannot: the queue failed it (a worker lost: its lock expired and BullMQ's stall check
 * failed it), it disappeared, or the session gave up waiting. Settling happens once.
 */
import { DetachedRun } from '../jobs/job-error.js';
import { finalText } from '../agents/child-run.js';
import type { ChildOutcome, ChildRunRequest } from '../jobs/job-types.js';
import type { Message, Usage } from '../providers/types.js';
import { type OutEntry, type RawEntry, type RemoteBranch, parseOutEntry } from './channels.js';

/** The reason a job failed for when its worker went away mid-run (BullMQ's stall check). */
export const WORKER_LOST = 'worker lost';

/** What the follower tells its session beyond the request's own callbacks. */
export interface FollowerHooks {
  onWorker?: (jobId: string, worker: string) => void;
  onBranch?: (jobId: string, branch: RemoteBranch) => void;
  onUsage?: (jobId: string, usage: Usage) => void;
  onTranscript?: (jobId: string, message: Message) => void;
}

/** How the queue left a job whose worker sent no end. */
export type QueueVerdict =
  { kind: 'stalled' } | { kind: 'failed'; reason: string } | { kind: 'missing' } | { kind: 'completed-silently' };

/**
 * Thrown to a run the session stopped following without stopping the job (the session closed):
 * the job goes on on its worker, and `attach` with `remoteId` (after `cursor`) picks it up again.
 */
export class RemoteJobDetached extends DetachedRun {
  override name = 'RemoteJobDetached';
  constructor(
    readonly remoteId: string,
    readonly cursor: string,
  ) {
    super(`the session stopped following ${remoteId}; it goes on on its worker and can be attached again`);
  }
}

export class JobFollower {
  readonly outcome: Promise<ChildOutcome>;
  private settle!: (outcome: ChildOutcome) => void;
  private reject!: (error: Error) => void;
  private settled = false;
  private readonly messages: Message[] = [];
  private worker: string | undefined;
  /** Entries seen, so a re-read range never hands one over twice. */
  private lastId: string;

  /** `after`: the last entry id a previous follower of this job read ('0': none). */
  constructor(
    readonly remoteId: string,
    private readonly request: Pick<ChildRunRequest, 'id' | 'onEvent' | 'onMessage'>,
    private readonly hooks: FollowerHooks,
    after = '0',
  ) {
    this.lastId = after;
    this.outcome = new Promise((resolve, reject) => {
      this.settle = resolve;
      this.reject = reject;
    });
  }

  get done(): boolean {
    return this.settled;
  }

  /** The worker that took the job, once one has. */
  get workerName(): string | undefined {
    return this.worker;
  }

  /** The last entry id read: a re-attach after it reads the rest. */
  get cursor(): string {
    return this.lastId;
  }

  /** Hands over entries in order; ones at or before the last seen id are skipped. */
  take(entries: readonly RawEntry[]): void {
    for (const raw of entries) {
      if (this.settled) return;
      if (!isAfter(raw[0], this.lastId)) continue;
      this.lastId = raw[0];
      const entry = parseOutEntry(raw);
      if (entry) this.apply(entry);
    }
  }

  private apply(entry: OutEntry): void {
    const jobId = this.request.id;
    switch (entry.kind) {
      case 'started':
        if (entry.attempt > 1) {
          // A retry (agents.queue.retries) starts the child again from its task.
          this.messages.length = 0;
          this.request.onEvent({
            type: 'notice',
            level: 'warn',
            text: `${entry.worker} runs ${jobId} again (attempt ${entry.attempt})`,
          });
        }
        this.worker = entry.worker;
        this.hooks.onWorker?.(jobId, entry.worker);
        return;
      case 'event':
        this.request.onEvent(entry.event);
        return;
      case 'message':
        this.messages.push(entry.message);
        this.hooks.onTranscript?.(jobId, entry.message);
        this.request.onMessage?.(entry.message);
        return;
      case 'end':
        this.worker = entry.worker;
        this.hooks.onUsage?.(jobId, entry.usage);
        if (entry.branch) this.hooks.onBranch?.(jobId, entry.branch);
        this.finish({ status: entry.outcome.status, text: entry.outcome.text, error: entry.outcome.error });
        return;
    }
  }

  /** Stops following without settling the job: its run rejects with RemoteJobDetached. */
  detach(): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(new RemoteJobDetached(this.remoteId, this.lastId));
  }

  /** Ends a job its worker sent no end for, with whatever it had streamed. */
  fail(error: string): void {
    this.finish({ status: 'error', text: finalText(this.messages), error });
  }

  /** Ends a job as the queue left it (called after the last entries were read). */
  settleFromQueue(verdict: QueueVerdict): void {
    switch (verdict.kind) {
      case 'stalled':
        this.fail(this.worker ? `${WORKER_LOST} (${this.worker} stopped answering mid-job)` : WORKER_LOST);
        return;
      case 'failed':
        this.fail(`the queue failed the job: ${verdict.reason}`);
        return;
      case 'missing':
        this.fail(`the job ${this.remoteId} is no longer on the queue (removed, or expired)`);
        return;
      case 'completed-silently':
        this.fail(`the worker${this.worker ? ` ${this.worker}` : ''} ended the job without reporting how it went`);
        return;
    }
  }

  private finish(outcome: Omit<ChildOutcome, 'messages'>): void {
    if (this.settled) return;
    this.settled = true;
    const { status, text, error } = outcome;
    this.settle({ status, text, ...(error !== undefined ? { error } : {}), messages: [...this.messages] });
  }
}

/** Stream ids `ms-seq` in order. */
export function isAfter(id: string, than: string): boolean {
  const [ms, seq] = id.split('-').map(Number) as [number, number];
  const [thanMs, thanSeq] = than.split('-').map(Number) as [number, number];
  return ms > thanMs || (ms === thanMs && (seq ?? 0) > (thanSeq ?? 0));
}
