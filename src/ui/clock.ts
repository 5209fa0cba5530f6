/**
 * Time as the UI reads it. Every timer in the app (event batching, key confirmations,
 * wake-on-complete, the elapsed-time tick) goes through one, so tests drive a fake.
 */
export interface Clock {
  now: () => number;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
