import type { Timers } from '../../src/core/jobs/job-manager.js';

/** A clock and timers that move only when the test says so. */
export class FakeClock implements Timers {
  private time = 0;
  private timers: { at: number; fn: () => void; handle: number }[] = [];
  private nextHandle = 1;

  now = (): number => this.time;

  setTimeout = (fn: () => void, ms: number): unknown => {
    const handle = this.nextHandle++;
    this.timers.push({ at: this.time + ms, fn, handle });
    return handle;
  };

  clearTimeout = (handle: unknown): void => {
    this.timers = this.timers.filter((t) => t.handle !== handle);
  };

  /** Moves time on by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = until;
  }

  /** Timers not yet fired. */
  pending(): number {
    return this.timers.length;
  }

  /** When the next timer falls due (on this clock), or undefined when none is pending. */
  nextAt(): number | undefined {
    return this.timers.length ? Math.min(...this.timers.map((t) => t.at)) : undefined;
  }
}

/** Lets every queued promise callback and I/O callback run. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i += 1) await new Promise((resolve) => setImmediate(resolve));
}
