/**
 * One provider attempt under a watchdog. Each attempt gets its own AbortController, linked
 * to the caller's signal and unlinked when the attempt ends: the SDKs add an abort listener
 * to whatever signal a request gets and never remove it, so a signal shared by a whole turn
 * collected one per model call (Node warns at eleven).
 *
 * Two timers guard the attempt. Until the server answers (status and headers), the
 * first-byte timeout; from then on, the idle timeout, restarted by every content event.
 * Keep-alive pings are not content: a server that only pings is as stuck as a silent one.
 * Either timer aborts the attempt with a `StreamTimeoutError`, which the retry layer retries.
 * The call's time limit (deadline.ts) can cut the first-byte wait short: an attempt waits for
 * an answer no longer than the limit has left.
 */
import type { Clock } from '../platform/timers.js';
import type { StreamEvent } from './types.js';

/** How long a stream may stay silent, in milliseconds. */
export interface StreamTimeouts {
  /** From sending the request until the server answers with a status. */
  firstByteMs: number;
  /** Between two content events once the server answered. */
  idleMs: number;
}

export const DEFAULT_TIMEOUTS: StreamTimeouts = { firstByteMs: 60_000, idleMs: 180_000 };

/** What a backend reports while an attempt runs, so the watchdog can tell silence from progress. */
export interface AttemptProgress {
  /** The server answered: the status and headers arrived. */
  responded(): void;
  /** A content event arrived (not a keep-alive ping). */
  content(): void;
}

/** A stream that stayed silent too long; retryable. */
export class StreamTimeoutError extends Error {
  constructor(
    readonly phase: 'first_byte' | 'idle',
    readonly ms: number,
  ) {
    super(phase === 'first_byte' ? `no response within ${duration(ms)}` : `no data for ${duration(ms)}`);
    this.name = 'StreamTimeoutError';
  }

  /** What the user can do about it, for the message after the last retry. */
  get hint(): string {
    return this.phase === 'first_byte'
      ? 'if the server needs longer to start answering, raise firstByteTimeoutMs in settings.'
      : 'if the model pauses longer between outputs, raise idleTimeoutMs in settings.';
  }
}

/** "500 ms", "1.5 s", "60 s". */
function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

export type Attempt = (signal: AbortSignal, progress: AttemptProgress) => AsyncIterable<StreamEvent>;

/** The call's time limit as one attempt sees it (deadline.ts's CallBudget). */
export interface AttemptBudget {
  remaining(): number;
  /** The server answered: a streaming reply does not count against the limit. */
  pause(): void;
  /** The attempt ended: the time until the next one counts again. */
  resume(): void;
}

/**
 * Runs one attempt on its own signal under the two timeouts. Throws `StreamTimeoutError` when a
 * timer fired (and the caller did not abort); otherwise passes the attempt's events and errors on.
 */
export async function* watchAttempt(
  attempt: Attempt,
  parent: AbortSignal,
  options: { timeouts: StreamTimeouts; clock: Clock; budget?: AttemptBudget },
): AsyncGenerator<StreamEvent> {
  const { timeouts, clock, budget } = options;
  // The wait for an answer, cut to what the call's limit has left.
  const firstByteMs = Math.min(timeouts.firstByteMs, budget?.remaining() ?? Infinity);
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });

  let fired: StreamTimeoutError | undefined;
  let timer: unknown;
  let phase: 'first_byte' | 'idle' = 'first_byte';
  let lastContent = clock.now();
  const stop = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
  // One timer per phase, not one per event: on firing it checks when content last came.
  const arm = (ms: number) => {
    stop();
    timer = clock.setTimeout(() => {
      timer = undefined;
      const quiet = clock.now() - lastContent;
      if (phase === 'idle' && quiet < timeouts.idleMs) {
        arm(timeouts.idleMs - quiet);
        return;
      }
      fired = new StreamTimeoutError(phase, phase === 'idle' ? timeouts.idleMs : firstByteMs);
      controller.abort(fired);
    }, ms);
  };
  const progress: AttemptProgress = {
    responded: () => {
      if (phase !== 'first_byte' || fired) return;
      phase = 'idle';
      budget?.pause();
      lastContent = clock.now();
      arm(timeouts.idleMs);
    },
    content: () => {
      if (phase === 'first_byte') progress.responded();
      lastContent = clock.now();
    },
  };

  arm(firstByteMs);
  try {
    for await (const event of attempt(controller.signal, progress)) {
      // The message is complete: whatever the consumer does with it is not the server's silence.
      if (event.type === 'message_end') stop();
      yield event;
    }
  } catch (error) {
    if (fired && !parent.aborted) throw fired;
    throw error;
  } finally {
    stop();
    budget?.resume();
    parent.removeEventListener('abort', onAbort);
  }
  if (fired && !parent.aborted) throw fired;
}
