import type { LoopEvent } from '../loop/events.js';
import { JobError } from './job-error.js';
import { compareJobIds, normalizeJobId } from './job-ids.js';
import { type JobRecord, isEnded, snapshotOf } from './job-record.js';
import type { Job, JobEvent } from './job-types.js';

/** Every job of a session by id, and the events that tell front ends about them. */
export class JobTable {
  private readonly jobs = new Map<string, JobRecord>();
  /** Told, in order, whenever a job's state becomes final (the jobs waiting for it, the stall watch). */
  private readonly finishListeners: ((job: JobRecord) => void)[] = [];

  constructor(private readonly emit: ((event: JobEvent) => void) | undefined) {}

  has(id: string): boolean {
    return this.jobs.has(id);
  }

  add(job: JobRecord): void {
    this.jobs.set(job.id, job);
  }

  /** The job with exactly this id, if there is one. */
  lookup(id: string): JobRecord | undefined {
    return this.jobs.get(id);
  }

  /** The job a user or model meant (`3`, `sub-3`, `2.1`, `sh-1`); an unknown id names the known ones. */
  find(idOrNumber: string): JobRecord {
    const job = this.jobs.get(normalizeJobId(idOrNumber));
    if (!job) {
      const known = this.list().map((j) => j.id);
      throw new JobError(
        `unknown sub-agent id "${idOrNumber}". ${known.length ? `Known ids: ${known.join(', ')}.` : 'No sub-agents have been started.'}`,
      );
    }
    return job;
  }

  records(): JobRecord[] {
    return [...this.jobs.values()];
  }

  /** The jobs `owner` started (undefined: the parent's own). */
  ownedBy(owner: string | undefined): JobRecord[] {
    return this.records().filter((job) => job.owner === owner);
  }

  /**
   * Who hears of job `id`'s end: its owner while that one is queued or running, the parent
   * otherwise (a nested job resumed by a message after its owner ended, as after a resume).
   */
  recipientOf(id: string): string | undefined {
    const owner = this.jobs.get(id)?.owner;
    const ownerJob = owner === undefined ? undefined : this.jobs.get(owner);
    return ownerJob && !isEnded(ownerJob.state) ? owner : undefined;
  }

  /** Every job in tree order: each after its owner, sub-agents before shells. */
  list(): Job[] {
    return this.records()
      .sort((a, b) => compareJobIds(a.id, b.id))
      .map(snapshotOf);
  }

  /** The job's state is final: its waiters wake, and front ends hear, then the listeners (which may end other jobs). */
  finish(job: JobRecord): void {
    job.markFinished();
    this.emitState(job);
    for (const listener of this.finishListeners) listener(job);
  }

  /** Calls `listener` after each job's end has been published. */
  onFinish(listener: (job: JobRecord) => void): void {
    this.finishListeners.push(listener);
  }

  emitState(job: JobRecord): void {
    this.emit?.({ type: 'job_state', job: snapshotOf(job) });
  }

  /** One of a job's own events, with its counters as they stand after it. */
  emitEvent(job: JobRecord, event: LoopEvent): void {
    const { turns, toolCalls, usage, contextTokens, lastEventAt } = job;
    const counters = {
      turns,
      toolCalls,
      usage: { ...usage },
      contextTokens,
      ...(lastEventAt !== undefined ? { lastEventAt } : {}),
    };
    this.emit?.({ type: 'job_event', jobId: job.id, event, counters });
  }

  /**
   * Resolves when no sub-agent is queued or running (or `signal` aborts). Background shells are
   * not waited for: a server runs until it is stopped.
   */
  async idle(signal?: AbortSignal): Promise<void> {
    const waits = this.records()
      .filter((j) => !isEnded(j.state) && !j.shell)
      .map((j) => j.finished);
    if (waits.length === 0) return;
    await Promise.race([
      Promise.all(waits),
      new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true })),
    ]);
    // A job started (or resumed) meanwhile is waited for too.
    if (!signal?.aborted) await this.idle(signal);
  }

  emitDelivered(jobIds: string[], via: 'notice' | 'poll'): void {
    this.emit?.({ type: 'job_delivered', jobIds, via });
  }
}
