/**
 * Retrying a whole model call from the start. A provider attempt is all-or-nothing:
 * when it fails (rate limit, overload, 5xx, dropped connection, a stream cut before
 * its final event, a malformed chunk) the next attempt re-sends the same request and
 * streams the message again from its first delta.
 *
 * Before each retry the stream yields `{ type: 'retry', attempt, maxRetries, delayMs,
 * reason }`. Consumers must discard every partial delta of the message in flight when
 * they see it: the next attempt starts the message over. A rate limit (429, 529) is no
 * ordinary retry when the provider has a rate-limit gate (rate-limit-gate.ts): it pauses every
 * call of the provider, its retry event says `rateLimited`, and it spends none of maxRetries.
 */
import { CallBudget, deadlineError, waitRefusedError } from './deadline.js';
import { abortError, exhaustedError, scrubError, scrubSecret, type Classified, type ErrorContext } from './errors.js';
import { type Clock, realClock } from '../platform/timers.js';
import type { GatePermit } from './rate-limit-gate.js';
import { passGate, type RateLimitOptions, rateLimitWaitError } from './rate-limit-wait.js';
import { StreamTimeoutError } from './timeouts.js';
import { ProviderError, type StreamEvent } from './types.js';

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface DelayOptions {
  /** Delay of the first retry before jitter. */
  baseMs: number;
  /** Ceiling of the exponential delay. */
  maxMs: number;
  /**
   * The longest retry-after (or retry-after-ms) a server may ask for and be waited for; a
   * longer one ends the call at once with what the server asked, so a huge value cannot stall the session.
   */
  maxRetryAfterMs: number;
  random: () => number;
}

export const DEFAULT_DELAYS: Omit<DelayOptions, 'random'> = {
  baseMs: 1_000,
  maxMs: 30_000,
  maxRetryAfterMs: 60_000,
};

/**
 * Delay before retry number `attempt` (1-based): the server's retry-after when it
 * sent one (withRetries refuses one over `maxRetryAfterMs`), else exponential backoff
 * with "equal jitter" — half fixed, half random — so concurrent sub-agents do not retry in lockstep.
 */
export function retryDelay(attempt: number, retryAfterMs: number | undefined, options: DelayOptions): number {
  if (retryAfterMs !== undefined) return Math.round(Math.max(0, retryAfterMs));
  const exponential = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (options.random() * exponential) / 2);
}

/** A timer on `clock` that rejects with an AbortError as soon as the signal fires. */
export function clockSleep(clock: Clock): Sleep {
  return (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(abortError());
        return;
      }
      const onAbort = (): void => {
        clock.clearTimeout(timer);
        reject(abortError());
      };
      const timer = clock.setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
}

/** A real-time timer that rejects with an AbortError as soon as the signal fires. */
export const sleep: Sleep = clockSleep(realClock);

export interface RetryOptions extends DelayOptions {
  maxRetries: number;
  sleep: Sleep;
  classify: (error: unknown) => Classified;
  /** For the "failed after N retries" message and for scrubbing the key. */
  context: ErrorContext;
  /** The call's time limit, every attempt's wait for an answer and every backoff included (deadline.ts). */
  deadlineMs: number;
  /** Reads the time spent against the limit, and runs the waits at the rate-limit gate. */
  clock: Clock;
  /** For the message when a silent server used up the limit. */
  firstByteMs: number;
  /**
   * The provider's rate-limit gate: every attempt passes it, and a 429 (or 529) pauses it for
   * every call instead of spending this call's retries. Absent: rate limits are retried like
   * any failure.
   */
  rateLimit?: RateLimitOptions;
}

/**
 * Runs `attempt` until one succeeds, a failure is not worth retrying, the retries or the
 * call's time limit run out, the server asks for a wait too long to sit out, or the signal
 * aborts (then it throws an Error named 'AbortError' at once). Each attempt gets the call's
 * budget, to cut its wait for an answer at the limit and to pause it while a reply streams.
 *
 * With a rate-limit gate, each attempt first waits its turn there; a rate limit pauses the
 * gate and the call goes back in line, spending none of its retries, until its waits pass
 * `rateLimit.maxWaitMs`. Waiting at the gate is not time without an answer: the call's time
 * limit does not count it.
 */
export async function* withRetries(
  attempt: (budget: CallBudget) => AsyncIterable<StreamEvent>,
  signal: AbortSignal,
  options: RetryOptions,
): AsyncGenerator<StreamEvent> {
  const key = options.context.apiKey;
  const budget = new CallBudget(options.deadlineMs, options.clock);
  const waits = { waitedMs: 0 };
  let silent = 0;
  let retry = 0;
  let limited = 0;
  for (;;) {
    if (signal.aborted) throw abortError();
    let permit: GatePermit | undefined;
    if (options.rateLimit) {
      budget.pause();
      try {
        permit = yield* passGate(options.rateLimit, signal, waits, options.clock, options.context);
      } catch (error) {
        throw error instanceof ProviderError ? scrubError(error, key) : error;
      } finally {
        budget.resume();
      }
    }
    let failed = false;
    let failure: unknown;
    try {
      for await (const event of attempt(budget)) {
        if (event.type === 'message_end') permit?.succeeded();
        yield event;
      }
      return;
    } catch (error) {
      failed = true;
      failure = error;
    } finally {
      // Answered, or the caller left mid-stream: the place is free. A failure keeps it until
      // it is judged, so that a limit counts the calls running when it came.
      if (!failed) permit?.release();
    }
    if (signal.aborted) {
      permit?.release();
      throw abortError();
    }
    const verdict = options.classify(failure);
    const { rateLimit } = options;
    if (permit && rateLimit && verdict.kind === 'retry' && isGateLimit(verdict, rateLimit)) {
      const pauseMs = permit.limited({ reason: verdict.reason, status: verdict.status, retryAfterMs: verdict.retryAfterMs });
      permit.release();
      // A pause this call cannot sit out ends it now, with no retry announced first.
      const { maxWaitMs } = rateLimit;
      if (pauseMs > maxWaitMs - waits.waitedMs) {
        const facts = { waitedMs: waits.waitedMs, pauseLeftMs: pauseMs };
        throw scrubError(rateLimitWaitError(options.context, verdict, facts, maxWaitMs), key);
      }
      limited += 1;
      const reason = scrubSecret(verdict.reason, key);
      yield { type: 'retry', attempt: limited, maxRetries: options.maxRetries, delayMs: pauseMs, reason, rateLimited: true };
      continue;
    }
    permit?.release();
    if (verdict.kind === 'abort') throw abortError();
    if (verdict.kind === 'fatal') throw scrubError(verdict.error, key);
    if (failure instanceof StreamTimeoutError && failure.phase === 'first_byte') silent++;
    const facts = { budget, attempts: retry + limited + 1, silent, firstByteMs: options.firstByteMs, last: verdict };
    if (budget.remaining() <= 0) throw scrubError(deadlineError(options.context, facts), key);
    const maxRetries = Math.min(options.maxRetries, verdict.maxRetries ?? options.maxRetries);
    if (retry >= maxRetries) throw scrubError(exhaustedError(options.context, retry, verdict), key);
    const delayMs = verdict.delayMs ?? retryDelay(retry + 1, verdict.retryAfterMs, options);
    // A wait the server asked for is sat out only when it is short and the next attempt
    // still has time after it; otherwise the call ends now, saying what the server asked.
    const asked = verdict.delayMs === undefined && verdict.retryAfterMs !== undefined;
    if (asked && (delayMs > options.maxRetryAfterMs || delayMs >= budget.remaining())) {
      const refusal = { last: verdict, waitMs: delayMs, maxWaitMs: options.maxRetryAfterMs, budget };
      throw scrubError(waitRefusedError(options.context, refusal), key);
    }
    if (delayMs >= budget.remaining()) throw scrubError(deadlineError(options.context, { ...facts, nextDelayMs: delayMs }), key);
    retry += 1;
    yield {
      type: 'retry',
      attempt: retry,
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

/** A failure the gate handles: a rate limit, or an overloaded model unless those are left to the retries. */
function isGateLimit(verdict: { limit?: 'rate' | 'overload' }, rateLimit: RateLimitOptions): boolean {
  return verdict.limit === 'rate' || (verdict.limit === 'overload' && rateLimit.overloaded);
}
