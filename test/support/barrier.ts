/**
 * Proves concurrency without a clock: callers wait at the barrier until `count` of them
 * are waiting at once, then all go on. A mock responder or a fake tool that passes through
 * it can only finish if `count` requests (or calls) were in flight together.
 *
 * A deadline, counted from the first arrival, lets everyone go if the rest never come, so
 * a broken run ends instead of hanging; `assertOpened()` then fails, saying how many came.
 * Callers after the barrier opened pass straight through.
 */
export interface Barrier {
  /** Resolves once `count` callers are waiting (or the deadline passed). Never rejects. */
  arrive(): Promise<void>;
  /** Callers that have arrived so far. */
  readonly arrived: number;
  /** True once `count` callers were waiting at the same time. */
  readonly opened: boolean;
  /** Throws a message naming what was awaited and how many came, unless the barrier opened. */
  assertOpened(): void;
}

export interface BarrierOptions {
  /** What the barrier waits for, for the failure message: "4 first child requests". */
  what: string;
  /** From the first arrival; 10 s unless told. A passing run never waits for it. */
  timeoutMs?: number;
}

export function barrier(count: number, options: BarrierOptions): Barrier {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const waiting: (() => void)[] = [];
  let arrived = 0;
  let opened = false;
  let broken = false;
  let atDeadline = 0;
  let deadline: NodeJS.Timeout | undefined;

  const releaseAll = (): void => {
    clearTimeout(deadline);
    for (const release of waiting.splice(0)) release();
  };

  return {
    arrive() {
      arrived += 1;
      if (opened || broken) return Promise.resolve();
      if (arrived >= count) {
        opened = true;
        releaseAll();
        return Promise.resolve();
      }
      deadline ??= setTimeout(() => {
        broken = true;
        atDeadline = arrived;
        releaseAll();
      }, timeoutMs).unref();
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    get arrived() {
      return arrived;
    },
    get opened() {
      return opened;
    },
    assertOpened() {
      if (opened) return;
      const state = broken ? `only ${atDeadline} arrived within ${timeoutMs} ms of the first` : `only ${arrived} have arrived`;
      throw new Error(`barrier: expected ${count} ${options.what} in flight at once; ${state}`);
    },
  };
}
