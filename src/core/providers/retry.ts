/**
 * Retrying a whole model call from the start. A provider attempt is all-or-nothing:
 * when it fails (rate limit, overload, 5xx, dropped connection, a stream cut before
 * its final event, a malformed chunk) the next attempt re-sends the same request and
 * streams the message again from its first delta.
 *
 * Before each retry the stream yields `{ type: 'retry', attempt, maxRetries, delayMs,
 * reason }`. Consumers must discard every partial delta of the message in flight when
 * they see it: the next attempt starts the message over.
 */
import { abortError, exhaustedError, scrubError, scrubSecret, type Classified, type ErrorContext } from './errors.js';
import type { StreamEvent } from './types.js';

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface DelayOptions {
  /** Delay of the first retry before jitter. */
  baseMs: number;
  /** Ceiling of the exponential delay. */
  maxMs: number;
  /** Ceiling on a server's retry-after, so a huge value cannot stall the session. */
  retryAfterCapMs: number;
  random: () => number;
}

export const DEFAULT_DELAYS: Omit<DelayOptions, 'random'> = {
  baseMs: 1_000,
  maxMs: 30_000,
  retryAfterCapMs: 60_000,
};

/**
 * Delay before retry number `attempt` (1-based): the server's retry-after when it
 * sent one (capped), else exponential backoff with "equal jitter" — half fixed, half
 * random — so concurrent sub-agents do not retry in lockstep.
 */
export function retryDelay(attempt: number, retryAfterMs: number | undefined, options: DelayOptions): number {
  if (retryAfterMs !== undefined) return Math.round(Math.min(Math.max(0, retryAfterMs), options.retryAfterCapMs));
  const exponential = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (options.random() * exponential) / 2);
}

/** A timer that rejects with an AbortError as soon as the signal fires. */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

export interface RetryOptions extends DelayOptions {
  maxRetries: number;
  sleep: Sleep;
  classify: (error: unknown) => Classified;
  /** For the "failed after N retries" message and for scrubbing the key. */
  context: ErrorContext;
}

/**
 * Runs `attempt` until one succeeds, a failure is not worth retrying, the retries
 * run out, or the signal aborts (then it throws an Error named 'AbortError' at once).
 */
export async function* withRetries(
  attempt: () => AsyncIterable<StreamEvent>,
  signal: AbortSignal,
  options: RetryOptions,
): AsyncGenerator<StreamEvent> {
  const key = options.context.apiKey;
  for (let retry = 0; ; retry++) {
    if (signal.aborted) throw abortError();
    let failure: unknown;
    try {
      yield* attempt();
      return;
    } catch (error) {
      failure = error;
    }
    if (signal.aborted) throw abortError();
    const verdict = options.classify(failure);
    if (verdict.kind === 'abort') throw abortError();
    if (verdict.kind === 'fatal') throw scrubError(verdict.error, key);
    const maxRetries = Math.min(options.maxRetries, verdict.maxRetries ?? options.maxRetries);
    if (retry >= maxRetries) throw scrubError(exhaustedError(options.context, retry, verdict), key);
    const delayMs = verdict.delayMs ?? retryDelay(retry + 1, verdict.retryAfterMs, options);
    yield {
      type: 'retry',
      attempt: retry + 1,
      maxRetries,
      delayMs,
      reason: scrubSecret(verdict.reason, key),
    };
    try {
      await options.sleep(delayMs, signal);
    } catch (error) {
      if (signal.aborted) throw abortError();
      throw error;
    }
  }
}
