/**
 * The time limit of one model call, every retry and backoff included, and the errors that
 * end a call on it. Without it a silent server took 5 first-byte timeouts plus backoff
 * (over 5 minutes) to become an error, and a server asking to wait a day sat out 4 capped
 * minutes of retry-after.
 *
 * The limit counts the time a call spends without an answer: each attempt until the server
 * answers (status and headers), and the waits between attempts. A reply that is streaming
 * does not count: a long answer is not cut, and its silences are the idle timeout's business.
 */
import { formatDuration } from '../platform/text.js';
import type { ErrorContext } from './errors.js';
import type { Clock } from '../platform/timers.js';
import { ProviderError } from './types.js';

/** The limit with the default 60 s first-byte timeout: two full waits, their backoff and about half a third. */
export const DEFAULT_CALL_DEADLINE_MS = 150_000;

/**
 * The limit when none is set: 150 s, or 2.5 first-byte timeouts when the user raised that
 * timeout (a slow local server), so the first attempt still gets its whole wait and then some.
 */
export function defaultCallDeadline(firstByteMs: number): number {
  return Math.max(DEFAULT_CALL_DEADLINE_MS, Math.round(2.5 * firstByteMs));
}

/** The running total of one call's time without an answer; paused while a reply streams. */
export class CallBudget {
  private spent = 0;
  private since: number | undefined;
  readonly startedAt: number;

  constructor(
    readonly totalMs: number,
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    this.startedAt = clock.now();
    this.since = this.startedAt;
  }

  /** The server answered: its reply's time is not counted. */
  pause(): void {
    if (this.since === undefined) return;
    this.spent += this.clock.now() - this.since;
    this.since = undefined;
  }

  /** The attempt is over: count again. */
  resume(): void {
    if (this.since === undefined) this.since = this.clock.now();
  }

  used(): number {
    return this.spent + (this.since === undefined ? 0 : this.clock.now() - this.since);
  }

  remaining(): number {
    return Math.max(0, this.totalMs - this.used());
  }

  /** Wall time since the call began, for messages. */
  elapsed(): number {
    return this.clock.now() - this.startedAt;
  }
}

/** "800 ms", "27.5 s", "90 s", then "2m30s", "24h00m". */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 100_000) return `${Math.round(ms / 100) / 10} s`;
  return formatDuration(ms);
}

/** Where to look when a server sent nothing. */
function checkWhere(ctx: ErrorContext): string {
  return ctx.baseURL ? `the server at ${ctx.baseURL}` : `your network and the ${ctx.label} API's status`;
}

const SETTING = 'callDeadlineMs';

/** What the call went through before its time ran out. */
export interface DeadlineFacts {
  budget: CallBudget;
  attempts: number;
  /** Attempts that got no answer at all (first-byte timeouts, the deadline's cut included). */
  silent: number;
  firstByteMs: number;
  last: { reason: string; status?: number; hint?: string };
  /** Set when the time ran out because the next backoff would not fit. */
  nextDelayMs?: number;
}

/** The call's time limit ran out. */
export function deadlineError(ctx: ErrorContext, facts: DeadlineFacts): ProviderError {
  const { budget, attempts } = facts;
  const elapsed = humanDuration(budget.elapsed());
  if (facts.silent === attempts && facts.nextDelayMs === undefined) {
    const times = attempts === 1 ? 'once' : `${attempts} times`;
    return new ProviderError(
      `${ctx.label}: the server sent nothing for up to ${humanDuration(facts.firstByteMs)}, ${times}; gave up after ${elapsed}, ` +
        `the time limit for one model call with its retries (${SETTING}): check ${checkWhere(ctx)}, ` +
        `or raise firstByteTimeoutMs or ${SETTING} in settings if it needs longer to start answering.`,
      { retryable: true },
    );
  }
  const count = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  // Either the next backoff would pass the limit, or the limit cut the last attempt's wait for an answer.
  const end =
    facts.nextDelayMs === undefined
      ? `; the last attempt: ${facts.last.reason}, cut at that limit`
      : `, and the next retry (in ${humanDuration(facts.nextDelayMs)}) would pass that; the last attempt: ${facts.last.reason}` +
        (facts.last.hint ? `: ${facts.last.hint}` : '');
  return new ProviderError(
    `${ctx.label} gave up after ${elapsed} and ${count}: one model call with its retries may take ` +
      `${humanDuration(budget.totalMs)} (${SETTING})${end}`,
    { status: facts.last.status, retryable: true },
  );
}

/** The server asked for a wait that outrider does not sit out. */
export function waitRefusedError(
  ctx: ErrorContext,
  facts: {
    last: { reason: string; status?: number };
    waitMs: number;
    /** The longest wait honoured at all. */
    maxWaitMs: number;
    budget: CallBudget;
  },
): ProviderError {
  const { last, waitMs, maxWaitMs, budget } = facts;
  const why =
    waitMs > maxWaitMs
      ? `outrider waits at most ${humanDuration(maxWaitMs)}, so it did not`
      : `only ${humanDuration(budget.remaining())} was left of the call's time limit ` +
        `(${SETTING}, ${humanDuration(budget.totalMs)}), so outrider did not wait`;
  const advice = last.status === 429 ? "try again later, or check the account's rate limits" : 'try again later';
  return new ProviderError(
    `${ctx.label}: ${last.reason}, and the server asked to wait ${humanDuration(waitMs)} before a retry; ${why}: ${advice}.`,
    { status: last.status, retryable: true },
  );
}
