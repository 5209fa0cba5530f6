import type { LoopEvent } from '../loop/events.js';
import { JobError } from './job-error.js';
import { compareJobIds, normalizeJobId } from './job-ids.js';
import { type JobRecord, isEnded, snapshotOf } from './job-record.js';
import type { Job, JobEvent } from './job-types.js';

/** Every job of a session by id, and the events that tell front ends about them. */
export class JobTable {
  private readonly jobs = new Map<string, JobRecord>();

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

  /** The job's state is final: its waiters wake, and front ends hear. */
  finish(job: JobRecord): void {
    job.markFinished();
    this.emitState(job);
  }

  emitState(job: JobRecord): void {
    this.emit?.({ type: 'job_state', job: snapshotOf(job) });
  }

  /** One of a job's own events, with its counters as they stand after it. */
  emitEvent(job: JobRecord, event: LoopEvent): void {
    const { turns, toolCalls, usage, contextTokens } = job;
    this.emit?.({ type: 'job_event', jobId: job.id, event, counters: { turns, toolCalls, usage: { ...usage }, contextTokens } });
  }

  emitDelivered(jobIds: string[], via: 'notice' | 'poll'): void {
    this.emit?.({ type: 'job_delivered', jobIds, via });
  }
}
