import type { Message } from '../providers/types.js';
import type { ForkSnapshot, Job, JobState, Timers } from './job-types.js';
import type { ShellOutput } from './shell-output.js';

/** What the manager keeps of a job beyond its snapshot: its run's controls and its conversation. */
export interface JobRecord extends Job {
  controller: AbortController;
  /** Resolves when the job's state becomes final (at once on stop). */
  finished: Promise<void>;
  markFinished: () => void;
  /** Resolves when its run has really returned (or it was dropped from the queue). */
  settled: Promise<unknown>;
  fork?: ForkSnapshot;
  instructions?: string;
  /** Messages sent while it runs, for its next step boundary. */
  inbox: Message[];
  /** Its conversation as its last run left it: what a message resumes. */
  history?: Message[];
  /** Why the run was cut short as a failure (a budget cap), when it was. */
  failure?: string;
  /** A background shell's process and unread output. */
  shell?: ShellOutput;
  /** A queue job the session stopped following as it quit: it goes on on its worker. */
  detached?: boolean;
}

/** A job of an earlier run of this session, as the store read it back (session/job-store.ts). */
export interface StoredJob {
  job: Job;
  messages: Message[];
  /**
   * Its end (or its interruption) has not reached the model: a resumed session announces it
   * once. Absent: delivered, or written by a version that kept no record of deliveries.
   */
  owed?: boolean;
}

/** A record around a job's facts, with controls that do nothing until it is queued. */
export function newRecord(job: Job, extra: Partial<Pick<JobRecord, 'fork' | 'instructions' | 'history'>> = {}): JobRecord {
  return {
    ...job,
    usage: { ...job.usage },
    controller: new AbortController(),
    finished: Promise.resolve(),
    markFinished: () => {},
    settled: Promise.resolve(),
    inbox: [],
    ...extra,
  };
}

/** The job's facts alone, safe to hand out (usage copied). */
export function snapshotOf(record: JobRecord): Job {
  const {
    controller: _c,
    finished: _f,
    markFinished: _m,
    settled: _s,
    fork: _k,
    instructions: _i,
    inbox: _b,
    history: _h,
    failure: _x,
    shell: _sh,
    ...job
  } = record;
  return { ...job, usage: { ...job.usage } };
}

export function isEnded(state: JobState): boolean {
  return state === 'done' || state === 'error' || state === 'aborted';
}

/** Waits until the job's state is final, `timeoutMs` passes, or `signal` aborts; says which came first. */
export async function waitForEnd(
  job: Pick<JobRecord, 'finished'>,
  options: { timers: Timers; timeoutMs: number; signal: AbortSignal },
): Promise<'ended' | 'timeout' | 'interrupted'> {
  const { timers, signal } = options;
  let handle: unknown;
  let onAbort = () => {};
  try {
    return await Promise.race([
      job.finished.then(() => 'ended' as const),
      new Promise<'timeout'>((resolve) => {
        handle = timers.setTimeout(() => resolve('timeout'), options.timeoutMs);
      }),
      new Promise<'interrupted'>((resolve) => {
        onAbort = () => resolve('interrupted');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    timers.clearTimeout(handle);
    signal.removeEventListener('abort', onAbort);
  }
}
