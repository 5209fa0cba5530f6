/**
 * One model call at its provider's rate-limit gate (rate-limit-gate.ts): it waits in line,
 * yielding `rate_limit` events when it has to wait (so its job's row can say
 * `waiting for rate limit 12s`) and once it goes on, and it gives up when its waits, added up
 * over the whole call, would pass the bound (`rateLimitWaitMs`, 10 minutes by default).
 */
import { humanDuration } from './deadline.js';
import { abortError, type ErrorContext } from './errors.js';
import type { GatePermit, GateWait, LimitFacts, RateLimitGate } from './rate-limit-gate.js';
import type { Clock } from '../platform/timers.js';
import { ProviderError, type StreamEvent } from './types.js';

/** The most one call waits for rate limits, all its waits together, when the setting is not given. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 10 * 60_000;

/** How a provider's calls meet rate limits. */
export interface RateLimitOptions {
  /** The gate every call of the provider passes (one per provider, shared by a session's parent and jobs). */
  gate: RateLimitGate;
  /** The most one call waits at the gate in all (`rateLimitWaitMs`); past it the call fails, saying so. */
  maxWaitMs: number;
  /**
   * 529s (overloaded) pause the gate as 429s do. False: they are retried like other failures,
   * within maxRetries, so that `--fallback-model` can take over from an overloaded model.
   */
  overloaded: boolean;
}

/** The time one call has spent waiting at the gate so far. */
export interface CallWaits {
  waitedMs: number;
}

/** What a call's waits came to when it gave up. */
interface WaitFacts {
  waitedMs: number;
  /** The pause had this much left, more than the call may still wait. */
  pauseLeftMs?: number;
}

/**
 * Takes one attempt of a call through the gate and returns its permit (the caller releases it).
 * Throws an AbortError as soon as the signal aborts (it has then left the line), and the bound's
 * error when it would wait longer than `maxWaitMs` in all.
 */
export async function* passGate(
  options: RateLimitOptions,
  signal: AbortSignal,
  waits: CallWaits,
  clock: Clock,
  context: ErrorContext,
): AsyncGenerator<StreamEvent, GatePermit> {
  if (signal.aborted) throw abortError();
  const ticket = options.gate.enter();
  const start = clock.now();
  let shown: GateWait | undefined;
  let through = false;
  try {
    for (;;) {
      const wait = ticket.waiting();
      const now = clock.now();
      const waited = waits.waitedMs + now - start;
      if (!wait) {
        // Stopped just as it was let through: the place goes back (finally).
        if (signal.aborted) throw abortError();
        if (shown) yield { type: 'rate_limit', waiting: false };
        waits.waitedMs = waited;
        through = true;
        return ticket.permit!;
      }
      const left = options.maxWaitMs - waited;
      const pauseLeftMs = wait.until === undefined ? 0 : wait.until - now;
      if (left <= 0 || pauseLeftMs > left) {
        const facts = { waitedMs: waited, ...(pauseLeftMs > left ? { pauseLeftMs } : {}) };
        throw rateLimitWaitError(context, options.gate.lastLimit(), facts, options.maxWaitMs);
      }
      if (shown?.until !== wait.until || shown?.reason !== wait.reason) {
        shown = wait;
        yield {
          type: 'rate_limit',
          waiting: true,
          ...(wait.until !== undefined ? { until: wait.until } : {}),
          reason: wait.reason,
        };
      }
      await ticket.changed(signal, left, clock);
    }
  } finally {
    if (!through) ticket.leave();
  }
}

/** The call would wait for rate limits longer than it may. */
export function rateLimitWaitError(ctx: ErrorContext, last: LimitFacts, facts: WaitFacts, maxWaitMs: number): ProviderError {
  const most = humanDuration(maxWaitMs);
  const why =
    facts.pauseLeftMs === undefined
      ? `this call has waited ${humanDuration(facts.waitedMs)} for rate limits, the most one model call may (rateLimitWaitMs, ${most})`
      : `calls to this provider pause ${humanDuration(facts.pauseLeftMs)} more, past the ${most} one model call may wait ` +
        `for rate limits (rateLimitWaitMs; ${humanDuration(facts.waitedMs)} waited so far)`;
  const advice = last.status === 429 ? "try again later, check the account's rate limits," : 'try again later';
  return new ProviderError(`${ctx.label}: ${last.reason}; ${why}: ${advice} or raise rateLimitWaitMs in settings.`, {
    ...(last.status !== undefined ? { status: last.status } : {}),
    retryable: true,
  });
}
