/**
 * The time limit of one model call, retries and backoff included, and the waits a server asks
 * for, through the real SDKs against the mock provider. Time is a fake clock: the watchdog's
 * timers and the backoff fire only when a test moves it, and each move waits until the call
 * is waiting on that timer.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, type ProviderOptions } from '../../../src/core/providers/create.js';
import { defaultCallDeadline, humanDuration } from '../../../src/core/providers/deadline.js';
import { classifyError, type ErrorContext } from '../../../src/core/providers/errors.js';
import { clockSleep, DEFAULT_DELAYS, withRetries } from '../../../src/core/providers/retry.js';
import { StreamTimeoutError } from '../../../src/core/providers/timeouts.js';
import { ProviderError, type ProviderName, type StreamEvent } from '../../../src/core/providers/types.js';
import { FakeClock, settle } from '../../support/fake-clock.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { recordingSleep, request } from '../../support/stream-helpers.js';
import { until } from '../../support/until.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const FIRST_BYTE = 60_000;
const IDLE = 180_000;
/** The bar: a silent server is a clear error within this much time. */
const BAR = 180_000;
const label: Record<ProviderName, string> = { anthropic: 'Anthropic', openai: 'OpenAI' };

/** Drains a stream in the background; `events` fills as they arrive, `finished` once it ended. */
function drain(stream: AsyncIterable<StreamEvent>) {
  const events: StreamEvent[] = [];
  const run = {
    events,
    finished: false,
    retries: () => events.filter((e) => e.type === 'retry'),
    done: undefined as unknown as Promise<unknown>,
  };
  run.done = (async () => {
    try {
      for await (const event of stream) events.push(event);
      return undefined;
    } catch (error) {
      return error;
    } finally {
      run.finished = true;
    }
  })();
  return run;
}

type Run = ReturnType<typeof drain>;

/** Waits until `ready` holds (true) or the call ended (false). */
async function waitFor(run: Run, ready: () => boolean, what: string): Promise<boolean> {
  return (await until(() => (run.finished ? 'ended' : ready() ? 'ready' : false), { what })) === 'ready';
}

/** An attempt that yields nothing and fails as `fail` does. */
function failing(fail: () => Promise<never>): AsyncIterable<StreamEvent> {
  return { [Symbol.asyncIterator]: () => ({ next: fail }) };
}

/** Moves the clock to its one pending timer. */
function fireNext(clock: FakeClock): void {
  clock.advance(clock.nextAt()! - clock.now());
}

/**
 * A server that never answers: fires each attempt's first-byte timer once its request is at
 * the mock, and each backoff once it began, until the call ends.
 */
async function driveSilent(run: Run, clock: FakeClock): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (!(await waitFor(run, () => mock.requests.length === attempt && clock.pending() === 1, `attempt ${attempt}`))) return;
    fireNext(clock);
    if (!(await waitFor(run, () => run.retries().length === attempt && clock.pending() === 1, `backoff ${attempt}`))) return;
    fireNext(clock);
  }
}

/** A server that answers at once: fires each backoff once it began (and nothing else), until the call ends. */
async function driveBackoffs(run: Run, clock: FakeClock): Promise<void> {
  for (let retry = 1; ; retry++) {
    if (!(await waitFor(run, () => run.retries().length === retry && clock.pending() === 1, `backoff ${retry}`))) return;
    fireNext(clock);
  }
}

describe('defaultCallDeadline', () => {
  it('is 150 s, or 2.5 first-byte timeouts when those are longer', () => {
    expect(defaultCallDeadline(60_000)).toBe(150_000);
    expect(defaultCallDeadline(500)).toBe(150_000);
    expect(defaultCallDeadline(300_000)).toBe(750_000);
  });

  it('reads as people write it', () => {
    expect([800, 27_750, 60_000, 90_000, 150_000, 86_400_000].map(humanDuration)).toEqual([
      '800 ms',
      '27.8 s',
      '60 s',
      '90 s',
      '2m30s',
      '24h00m',
    ]);
  });
});

describe('withRetries under the time limit', () => {
  const context: ErrorContext = { label: 'OpenAI', keyEnv: 'OPENAI_API_KEY', model: 'm', apiKey: 'sk-unit-test-0001' };

  it('a limit reached while the server had answered before says what the last attempt met, not "sent nothing"', async () => {
    const clock = new FakeClock();
    // A 500 at once, then silence: each silent attempt takes what the watchdog would give it.
    let attempts = 0;
    const attempt = (budget: { remaining(): number }): AsyncIterable<StreamEvent> =>
      failing(async () => {
        attempts++;
        if (attempts === 1) throw new SyntaxError('Unexpected token');
        const waited = Math.min(FIRST_BYTE, budget.remaining());
        clock.advance(waited);
        throw new StreamTimeoutError('first_byte', waited);
      });
    // A backoff that passes on the clock at once, as if waited.
    const sleep = (ms: number) => {
      clock.advance(ms);
      return Promise.resolve();
    };
    const run = drain(
      withRetries(attempt, new AbortController().signal, {
        ...DEFAULT_DELAYS,
        random: () => 0.5,
        maxRetries: 4,
        sleep,
        classify: (error) => classifyError(error, context),
        context,
        deadlineMs: 150_000,
        clock,
        firstByteMs: FIRST_BYTE,
      }),
    );
    const error = (await run.done) as Error;
    // 0.75 s, 60 s, 1.5 s, 60 s, 3 s, then the 24.75 s left.
    expect(clock.now()).toBe(150_000);
    expect(error.message).toBe(
      'OpenAI gave up after 2m30s and 4 attempts: one model call with its retries may take 2m30s (callDeadlineMs); ' +
        'the last attempt: no response within 24.8 s, cut at that limit',
    );
  });

  it('the default backoff runs on the given clock', async () => {
    const clock = new FakeClock();
    const sleeping = clockSleep(clock)(5000, new AbortController().signal);
    let woke = false;
    void sleeping.then(() => (woke = true));
    clock.advance(4999);
    await settle();
    expect(woke).toBe(false);
    clock.advance(1);
    await sleeping;
    expect(woke).toBe(true);
  });
});

describe.each(['anthropic', 'openai'] as const)('%s call deadline', (name) => {
  const baseURL = () => (name === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL);
  function provider(clock: FakeClock, extra: Partial<ProviderOptions> = {}) {
    return createProvider({
      provider: name,
      apiKey: 'sk-deadline-test-01',
      baseURL: baseURL(),
      clock,
      random: () => 0.5,
      ...extra,
    });
  }

  it('a server that never answers is a clear error within 3 minutes, retries and backoff included', async () => {
    mock.respond(() => ({ fault: { kind: 'hang' } }));
    const clock = new FakeClock();
    const run = drain(provider(clock)(request(), new AbortController().signal));
    await driveSilent(run, clock);

    const error = await run.done;
    expect(error).toBeInstanceOf(ProviderError);
    // 60 s, backoff 0.75 s, 60 s, backoff 1.5 s, then the 27.75 s left of the 150 s.
    expect(clock.now()).toBe(150_000);
    expect(clock.now()).toBeLessThan(BAR);
    expect((error as Error).message).toBe(
      `${label[name]}: the server sent nothing for up to 60 s, 3 times; gave up after 2m30s, the time limit for one model call ` +
        `with its retries (callDeadlineMs): check the server at ${baseURL()}, or raise firstByteTimeoutMs or callDeadlineMs ` +
        `in settings if it needs longer to start answering.`,
    );
    expect(run.retries().map((e) => (e.type === 'retry' ? [e.attempt, e.delayMs, e.reason] : []))).toEqual([
      [1, 750, 'no response within 60 s'],
      [2, 1500, 'no response within 60 s'],
    ]);
    expect(mock.requests).toHaveLength(3);
    expect(clock.pending()).toBe(0);
  });

  it('callDeadlineMs sets the limit: the attempt in flight is cut at it', async () => {
    mock.respond(() => ({ fault: { kind: 'hang' } }));
    const clock = new FakeClock();
    const run = drain(provider(clock, { callDeadlineMs: 90_000 })(request(), new AbortController().signal));
    await driveSilent(run, clock);

    const error = (await run.done) as Error;
    expect(clock.now()).toBe(90_000);
    expect(error.message).toMatch(
      new RegExp(`^${label[name]}: the server sent nothing for up to 60 s, 2 times; gave up after 90 s,`),
    );
    expect(mock.requests).toHaveLength(2);
  });

  it('the limit counts the backoff: a retry that would start past it is not waited for', async () => {
    mock.respond(() => ({ fault: { kind: 'status', status: 500, message: 'boom' } }));
    const clock = new FakeClock();
    // Backoff 22.5 s each (30 s ceiling, half random at 0.5): 10 retries would take 225 s.
    const run = drain(provider(clock, { maxRetries: 10, retryBaseDelayMs: 40_000 })(request(), new AbortController().signal));
    await driveBackoffs(run, clock);

    const error = (await run.done) as ProviderError;
    // Six backoffs (135 s); the seventh would end at 157.5 s.
    expect(clock.now()).toBe(135_000);
    expect(error.message).toBe(
      `${label[name]} gave up after 2m15s and 7 attempts: one model call with its retries may take 2m30s (callDeadlineMs), ` +
        `and the next retry (in 22.5 s) would pass that; the last attempt: server error (500): boom`,
    );
    expect(error.options.status).toBe(500);
    expect(run.retries()).toHaveLength(6);
    expect(mock.requests).toHaveLength(7);
  });

  it('a 429 asking to wait a day ends the call at once: past the wait a call may have for rate limits', async () => {
    mock.respond(() => ({ fault: { kind: 'status', status: 429, retryAfter: 86_400, message: 'slow down' } }));
    const clock = new FakeClock();
    const recorder = recordingSleep();
    const run = drain(provider(clock, { sleep: recorder.sleep })(request(), new AbortController().signal));

    const error = (await run.done) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      `${label[name]}: rate limited (429); calls to this provider pause 24h00m more, past the 10m00s one model call may ` +
        "wait for rate limits (rateLimitWaitMs; 0 ms waited so far): try again later, check the account's rate limits, " +
        'or raise rateLimitWaitMs in settings.',
    );
    expect(error.options.status).toBe(429);
    expect(recorder.delays).toEqual([]);
    expect(run.retries()).toEqual([]);
    expect(clock.now()).toBe(0);
    expect(clock.pending()).toBe(0);
    expect(mock.requests).toHaveLength(1);
  });

  it('retry-after-ms is read the same way; a 529 asking 90 s is waited, past maxRetryAfterMs', async () => {
    mock.script(
      { fault: { kind: 'status', status: 529, headers: { 'retry-after-ms': '90000' }, type: 'overloaded_error' } },
      { text: 'after the pause' },
    );
    const clock = new FakeClock();
    const recorder = recordingSleep();
    const run = drain(provider(clock, { sleep: recorder.sleep })(request(), new AbortController().signal));
    await until(() => run.events.at(-1)?.type === 'rate_limit', { what: 'the wait at the gate' });

    expect(run.events.at(-1)).toEqual({ type: 'rate_limit', waiting: true, until: 90_000, reason: 'overloaded (529)' });
    clock.advance(90_000);
    expect(await run.done).toBeUndefined();
    expect(recorder.delays).toEqual([]);
    expect(mock.requests).toHaveLength(2);
  });

  it("a rate limit's pause is not time without an answer: the call's time limit does not count it", async () => {
    mock.script({ fault: { kind: 'status', status: 429, retryAfter: 45 } }, { text: 'after 45 s' });
    const clock = new FakeClock();
    const run = drain(provider(clock, { callDeadlineMs: 30_000 })(request(), new AbortController().signal));
    await until(() => run.events.at(-1)?.type === 'rate_limit', { what: 'the wait at the gate' });
    clock.advance(45_000);
    expect(await run.done).toBeUndefined();
    expect(mock.requests).toHaveLength(2);
  });

  it('a wait another server error asks for that the time left cannot hold ends the call at once', async () => {
    mock.respond(() => ({ fault: { kind: 'status', status: 503, retryAfter: 45, message: 'busy' } }));
    const clock = new FakeClock();
    const recorder = recordingSleep();
    const run = drain(
      provider(clock, { callDeadlineMs: 30_000, sleep: recorder.sleep })(request(), new AbortController().signal),
    );

    const error = (await run.done) as Error;
    expect(error.message).toBe(
      `${label[name]}: server error (503): busy, and the server asked to wait 45 s before a retry; only 30 s was left of ` +
        `the call's time limit (callDeadlineMs, 30 s), so outrider did not wait: try again later.`,
    );
    expect(recorder.delays).toEqual([]);
    expect(clock.now()).toBe(0);
    expect(mock.requests).toHaveLength(1);
  });

  it('a 429 asking to wait 2 s is told as a rate-limited retry, waited at the gate, and retried', async () => {
    mock.script({ fault: { kind: 'status', status: 429, retryAfter: 2 } }, { text: 'after the wait' });
    const clock = new FakeClock();
    const run = drain(provider(clock)(request(), new AbortController().signal));
    await until(() => run.events.at(-1)?.type === 'rate_limit', { what: 'the wait at the gate' });

    // The user is told before the wait.
    expect(run.retries()).toEqual([
      { type: 'retry', attempt: 1, maxRetries: 4, delayMs: 2000, reason: 'rate limited (429)', rateLimited: true },
    ]);
    clock.advance(1999);
    await settle();
    expect(mock.requests).toHaveLength(1);
    clock.advance(1);

    expect(await run.done).toBeUndefined();
    expect(run.events.at(-1)).toMatchObject({
      type: 'message_end',
      message: { content: [{ type: 'text', text: 'after the wait' }] },
    });
    expect(mock.requests).toHaveLength(2);
  });

  it('a streaming reply does not count against the limit: its silence is the idle timeout, then a retry', async () => {
    const pingsAfterText = {
      text: 'partial answer',
      fault: { kind: 'pings', afterChunks: name === 'anthropic' ? 4 : 2 },
    } as const;
    mock.script(pingsAfterText, { text: 'second try' });
    const clock = new FakeClock();
    const run = drain(provider(clock)(request(), new AbortController().signal));
    await until(() => run.events.some((e) => e.type === 'text_delta'), { what: 'the first text delta' });

    // Past the call's 150 s limit while the reply streams: nothing is cut.
    clock.advance(IDLE - 1);
    await settle();
    expect(run.retries()).toEqual([]);
    expect(run.finished).toBe(false);
    clock.advance(1);
    await driveBackoffs(run, clock);

    expect(await run.done).toBeUndefined();
    expect(run.retries().map((e) => (e.type === 'retry' ? e.reason : ''))).toEqual(['no data for 180 s']);
    expect(run.events.at(-1)).toMatchObject({
      type: 'message_end',
      message: { content: [{ type: 'text', text: 'second try' }] },
    });
  });

  it('a raised firstByteTimeoutMs keeps its whole wait: the default limit grows with it', async () => {
    mock.script({ fault: { kind: 'hang' } }, { text: 'slow server, second try' });
    const clock = new FakeClock();
    const run = drain(provider(clock, { firstByteTimeoutMs: 300_000 })(request(), new AbortController().signal));
    await until(() => mock.requests.length === 1 && clock.pending() === 1, { what: 'the first request' });

    clock.advance(300_000 - 1);
    await settle();
    expect(run.retries()).toEqual([]);
    clock.advance(1);
    await driveBackoffs(run, clock);

    expect(await run.done).toBeUndefined();
    expect(run.retries().map((e) => (e.type === 'retry' ? e.reason : ''))).toEqual(['no response within 300 s']);
  });

  it('an abort during a backoff is an abort, not a deadline', async () => {
    mock.script({ fault: { kind: 'status', status: 500 } });
    const clock = new FakeClock();
    const controller = new AbortController();
    const run = drain(provider(clock)(request(), controller.signal));
    await until(() => run.retries().length === 1 && clock.pending() === 1, { what: 'the backoff' });
    controller.abort();
    expect(((await run.done) as Error).name).toBe('AbortError');
    expect(clock.pending()).toBe(0);
  });
});
