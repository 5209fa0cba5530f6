/**
 * The suite's one way to wait for something: poll a condition until it holds, with a
 * deadline. The deadline only bounds a broken run (so it fails with a message instead of
 * hanging); a passing run never waits for it, so it can be generous.
 */
export interface UntilOptions {
  /** What is awaited, for the failure message: "the pane to show /help". */
  what: string;
  /** Give up after this long; 15 s unless told. */
  timeoutMs?: number;
  /** Time between two checks; 20 ms unless told. */
  intervalMs?: number;
  /** What to show as the last observed state on failure; by default the condition's last value or error. */
  observe?: () => unknown;
  /** Runs between two checks, before the pause (the UI harness moves its fake clock here). */
  between?: () => void | Promise<void>;
}

/**
 * Resolves with the condition's value once it is neither false, undefined nor null and
 * did not throw (a condition may throw, as an `expect` does, to say "not yet").
 */
export async function until<T>(
  condition: () => T | false | undefined | null | Promise<T | false | undefined | null>,
  options: UntilOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const intervalMs = options.intervalMs ?? 20;
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== false && value !== undefined && value !== null) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (performance.now() >= deadline) {
      const observed = options.observe ? safely(options.observe) : last;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}; last observed: ${describe(observed)}`);
    }
    await options.between?.();
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function safely(observe: () => unknown): unknown {
  try {
    return observe();
  } catch (error) {
    return error;
  }
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'string') return value.includes('\n') ? `\n${value}` : JSON.stringify(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
