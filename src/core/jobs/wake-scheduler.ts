import { type Timers, realTimers } from '../platform/timers.js';
import type { JobManager } from './job-manager.js';

export interface WakeSchedulerOptions {
  /** Completions this close to the first one share its turn. */
  windowMs: number;
  /** No turn is running. */
  isIdle: () => boolean;
  /** A completion has not reached the model yet. */
  owed: () => boolean;
  /** Starts the turn that carries the notice. */
  wake: () => void;
  timers?: Timers;
}

/**
 * Wake-on-complete: a sub-agent completing while the parent is idle starts one turn after
 * a short window, so completions arriving together cost one turn, not one each. A completion
 * during a turn starts nothing (the turn's boundaries or the next turn deliver it), and
 * neither does a window that ends with nothing owed (the user's own prompt carried it).
 */
export class WakeScheduler {
  private handle: unknown;
  private disposed = false;
  private readonly timers: Timers;

  constructor(private readonly options: WakeSchedulerOptions) {
    this.timers = options.timers ?? realTimers;
  }

  /** A sub-agent completed. */
  completed(): void {
    if (this.disposed || this.handle !== undefined || !this.options.isIdle()) return;
    this.handle = this.timers.setTimeout(() => this.fire(), this.options.windowMs);
  }

  dispose(): void {
    this.disposed = true;
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }

  private fire(): void {
    this.handle = undefined;
    if (this.disposed || !this.options.isIdle() || !this.options.owed()) return;
    this.options.wake();
  }
}

/**
 * The same policy where no timer wakes the parent (headless, ACP): wait until no sub-agent runs,
 * then say whether an end is still owed to the model, for a turn without a prompt to carry it.
 */
export async function noticeOwedOnceIdle(jobs: Pick<JobManager, 'idle' | 'undelivered'>, signal: AbortSignal): Promise<boolean> {
  await jobs.idle(signal);
  return !signal.aborted && jobs.undelivered().length > 0;
}
