/** Timers a component takes so tests can drive it with a fake clock (`test/support/fake-clock.ts`). */
export interface Timers {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

/** The real ones. */
export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Timers and the time they count in: one clock for a component's deadlines and ages (fake in tests). */
export interface Clock extends Timers {
  now: () => number;
}

/** The real one. */
export const realClock: Clock = { ...realTimers, now: () => Date.now() };

/** A timer that must not keep the process alive on its own (real timers only; a fake has nothing to unref). */
export function unrefTimer(handle: unknown): void {
  (handle as { unref?: () => void } | undefined)?.unref?.();
}
