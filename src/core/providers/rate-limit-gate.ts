/**
 * One provider's rate-limit gate, shared by every model call of a session: the parent's and
 * each sub-agent's. A 429 or 529 in any of them pauses the NEW calls of all of them for the
 * server's retry-after (or a backoff); calls in flight are not cut. After a limit fewer calls
 * run at once (halved, at least one), and one more is let through after each run of successes
 * as long as the cap (AIMD), until the cap reaches the session's concurrency and is lifted.
 *
 * Calls wait in line, first come first served. A limit reported by a call that started before
 * the last one was counted (two calls hitting the limit together) pauses no longer than the
 * server asked and halves nothing again: one pause, not two.
 */
import { abortError } from './errors.js';
import type { Clock } from '../platform/timers.js';

export interface RateLimitGateOptions {
  clock: Clock;
  /**
   * The session's concurrency (sub-agents plus the parent): once the cap grows back to it, it is
   * lifted. Absent: the cap grows without end.
   */
  maxConcurrent?: number;
  /** The pause after a limit that came without a retry-after, by the number of limits in a row (1 for the first). */
  backoff: (streak: number) => number;
}

/** What a waiting call waits for: the pause's end (`until`, on the gate's clock), or a free place under the cap. */
export interface GateWait {
  until?: number;
  /** The last limit: `rate limited (429)`. */
  reason: string;
}

/** The last limit the gate was told of. */
export interface LimitFacts {
  reason: string;
  status?: number;
}

/** The state of the gate, for tests and figures. */
export interface GateState {
  running: number;
  waiting: number;
  /** The most calls at once; undefined when no limit holds calls back. */
  cap?: number;
  /** When the pause ends; 0 or in the past when there is none. */
  pausedUntil: number;
}

/** One call's place at the gate: it holds a slot from when it is let through until `release`. */
export class GatePermit {
  private released = false;

  constructor(
    private readonly gate: RateLimitGate,
    /** The number of limits counted when the call went through. */
    readonly epoch: number,
  ) {}

  /** The call met a rate limit: everyone pauses. Returns how long the pause lasts from now. */
  limited(facts: LimitFacts & { retryAfterMs?: number }): number {
    return this.gate.limitedBy(this, facts);
  }

  /** The call got its answer. */
  succeeded(): void {
    this.gate.succeededBy();
  }

  /** The call is over (answered, failed or stopped): its slot is free. A second release changes nothing. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.gate.releasedBy();
  }
}

/** A call waiting in line; its permit once let through. */
export class GateTicket {
  permit: GatePermit | undefined;
  private wake: (() => void) | undefined;
  /** Something changed while nobody was waiting on `changed`: the next wait returns at once. */
  private dirty = false;

  constructor(private readonly gate: RateLimitGate) {}

  /** What it waits for; undefined once let through. */
  waiting(): GateWait | undefined {
    this.dirty = false;
    return this.permit ? undefined : this.gate.waitFor();
  }

  /**
   * Resolves when what it waits for may have changed (let through, the pause ended or moved, the
   * cap changed), or after `timeoutMs`. Rejects with an AbortError when the signal aborts; it then
   * has left the line.
   */
  changed(signal: AbortSignal, timeoutMs: number, clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        this.leave();
        reject(abortError());
        return;
      }
      const done = (): void => {
        clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.wake = undefined;
      };
      const onAbort = (): void => {
        done();
        this.leave();
        reject(abortError());
      };
      const timer = clock.setTimeout(() => {
        done();
        resolve();
      }, timeoutMs);
      this.wake = () => {
        done();
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (this.permit || this.dirty) this.notify();
    });
  }

  /** Leaves the line, or gives back the slot it was let through to. */
  leave(): void {
    if (this.permit) this.permit.release();
    else this.gate.left(this);
  }

  /** @internal The gate let it through or changed what it waits for. */
  notify(): void {
    if (this.wake) this.wake();
    else this.dirty = true;
  }
}

export class RateLimitGate {
  private running = 0;
  private cap: number | undefined;
  /** Answers since the cap last changed. */
  private successes = 0;
  /** Limits counted so far: a call let through before the last one does not count again. */
  private epoch = 0;
  /** Limits in a row without an answer between them, for the backoff. */
  private streak = 0;
  private pausedUntil = 0;
  private last: LimitFacts = { reason: 'rate limited' };
  private readonly line: GateTicket[] = [];
  private timer: unknown;

  constructor(private readonly options: RateLimitGateOptions) {}

  /** A call asks to go: let through at once when nothing holds calls back, else in line. */
  enter(): GateTicket {
    const ticket = new GateTicket(this);
    this.line.push(ticket);
    this.pump();
    return ticket;
  }

  state(): GateState {
    return {
      running: this.running,
      waiting: this.line.length,
      ...(this.cap !== undefined ? { cap: this.cap } : {}),
      pausedUntil: this.pausedUntil,
    };
  }

  /** The last limit met. */
  lastLimit(): LimitFacts {
    return this.last;
  }

  /** @internal */
  waitFor(): GateWait {
    const now = this.options.clock.now();
    return this.pausedUntil > now ? { until: this.pausedUntil, reason: this.last.reason } : { reason: this.last.reason };
  }

  /** @internal */
  limitedBy(permit: GatePermit, facts: LimitFacts & { retryAfterMs?: number }): number {
    const now = this.options.clock.now();
    if (permit.epoch === this.epoch) {
      // The first limit among the calls let through since the last: halve the calls at once
      // (of those running, this one included, or of the cap if lower).
      this.epoch += 1;
      this.streak += 1;
      this.cap = Math.max(1, Math.floor(Math.min(this.cap ?? this.running, this.running) / 2));
      this.successes = 0;
    }
    // The server's retry-after as it asked; but limits in a row with no answer between them
    // pause at least the backoff, so a server answering `retry-after: 0` again and again is
    // not asked again and again at once.
    const streak = Math.max(1, this.streak);
    const floor = streak > 1 ? this.options.backoff(streak - 1) : 0;
    const pauseMs = facts.retryAfterMs === undefined ? this.options.backoff(streak) : Math.max(facts.retryAfterMs, floor);
    this.pausedUntil = Math.max(this.pausedUntil, now + Math.max(0, pauseMs));
    this.last = { reason: facts.reason, ...(facts.status !== undefined ? { status: facts.status } : {}) };
    this.changed();
    return Math.max(0, this.pausedUntil - now);
  }

  /** @internal */
  succeededBy(): void {
    this.streak = 0;
    if (this.cap === undefined) return;
    this.successes += 1;
    if (this.successes < this.cap) return;
    this.successes = 0;
    this.cap += 1;
    const { maxConcurrent } = this.options;
    if (maxConcurrent !== undefined && this.cap >= maxConcurrent) this.cap = undefined;
    this.changed();
  }

  /** @internal */
  releasedBy(): void {
    this.running -= 1;
    this.pump();
  }

  /** @internal */
  left(ticket: GateTicket): void {
    const at = this.line.indexOf(ticket);
    if (at >= 0) this.line.splice(at, 1);
    this.pump();
  }

  /** Lets calls through while the pause is over and the cap has room; tells the others what changed. */
  private changed(): void {
    this.pump();
    for (const ticket of this.line) ticket.notify();
  }

  private pump(): void {
    const { clock } = this.options;
    const now = clock.now();
    if (this.pausedUntil <= now) {
      while (this.line.length > 0 && (this.cap === undefined || this.running < this.cap)) {
        const ticket = this.line.shift()!;
        this.running += 1;
        ticket.permit = new GatePermit(this, this.epoch);
        ticket.notify();
      }
    }
    this.arm(now);
  }

  /** A timer for the pause's end while calls wait for it (none otherwise: nothing is kept alive for nobody). */
  private arm(now: number): void {
    const { clock } = this.options;
    if (this.timer !== undefined) clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.line.length === 0 || this.pausedUntil <= now) return;
    this.timer = clock.setTimeout(() => {
      this.timer = undefined;
      this.changed();
    }, this.pausedUntil - now);
  }
}
