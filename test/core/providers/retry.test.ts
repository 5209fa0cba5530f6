import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, type ProviderOptions } from '../../../src/core/providers/create.js';
import { DEFAULT_DELAYS, retryDelay, sleep } from '../../../src/core/providers/retry.js';
import { ProviderError, type ProviderName } from '../../../src/core/providers/types.js';
import { FakeClock } from '../../support/fake-clock.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { type Collected, drivePauses, recordingSleep, request, textAfterLastRetry } from '../../support/stream-helpers.js';

describe('retryDelay', () => {
  const options = { ...DEFAULT_DELAYS, random: () => 0 };

  it('doubles from the base, with half of each delay random', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, undefined, options))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((n) => retryDelay(n, undefined, { ...options, random: () => 1 }))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelay(2, undefined, { ...options, random: () => 0.5 })).toBe(1500);
  });

  it('never exceeds the maximum', () => {
    expect(retryDelay(20, undefined, { ...options, random: () => 1 })).toBe(DEFAULT_DELAYS.maxMs);
  });

  it("uses the server's retry-after as it is (a wait too long is refused by the retry loop, not shortened)", () => {
    expect(retryDelay(1, 7000, options)).toBe(7000);
    expect(retryDelay(3, 0, options)).toBe(0);
    expect(retryDelay(1, 3_600_000, options)).toBe(3_600_000);
  });
});

describe('sleep', () => {
  it('rejects with an AbortError as soon as the signal fires', async () => {
    const controller = new AbortController();
    // An hour: within the test, only the abort can settle it.
    const pending = sleep(3_600_000, controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects at once when the signal was already aborted', async () => {
    await expect(sleep(3_600_000, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
  });
});

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const label: Record<ProviderName, string> = { anthropic: 'Anthropic', openai: 'OpenAI' };

describe.each(['anthropic', 'openai'] as const)('%s retries', (name) => {
  function setup(maxRetries?: number, extra: Partial<ProviderOptions> = {}) {
    const recorder = recordingSleep();
    const clock = new FakeClock();
    const baseURL = name === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL;
    const stream = createProvider({
      provider: name,
      apiKey: 'sk-retry-test-key-0001',
      baseURL,
      maxRetries,
      sleep: recorder.sleep,
      random: () => 0.5,
      retryBaseDelayMs: 100,
      clock,
      ...extra,
    });
    const run = () => drivePauses(stream(request(), new AbortController().signal), clock);
    return { run, delays: recorder.delays, clock };
  }

  const waits = (result: Collected) => result.events.filter((e) => e.type === 'rate_limit');

  it('a 429 pauses the provider for the retry-after the server sent, and spends no retry', async () => {
    mock.script({ fault: { kind: 'status', status: 429, retryAfter: 7 } }, { text: 'after the rate limit' });
    const { run, delays, clock } = setup();
    const result = await run();

    expect(result.error).toBeUndefined();
    // No backoff of its own: it waited at the provider's gate, on the clock.
    expect(delays).toEqual([]);
    expect(clock.now()).toBe(7000);
    expect(result.retries).toEqual([
      { type: 'retry', attempt: 1, maxRetries: 4, delayMs: 7000, reason: 'rate limited (429)', rateLimited: true },
    ]);
    expect(waits(result)).toEqual([
      { type: 'rate_limit', waiting: true, until: 7000, reason: 'rate limited (429)' },
      { type: 'rate_limit', waiting: false },
    ]);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'after the rate limit' }]);
    expect(mock.requests).toHaveLength(2);
    expect(mock.requests[1]!.raw).toBe(mock.requests[0]!.raw);
  });

  it('honours retry-after given as an HTTP date', async () => {
    // Half a minute away (to the second the date carries): far from the 75 ms backoff an
    // unread header would give. Exact dates are parsed in errors.test.ts.
    const soon = new Date(Date.now() + 30_000).toUTCString();
    mock.script({ fault: { kind: 'status', status: 429, retryAfter: soon } }, { text: 'ok' });
    const { run, clock } = setup();
    const result = await run();
    expect(result.error).toBeUndefined();
    expect(clock.now()).toBeGreaterThan(25_000);
    expect(clock.now()).toBeLessThanOrEqual(30_000);
  });

  it('an HTTP date an hour away ends the call at once: past the wait a call may have for rate limits', async () => {
    const inAnHour = new Date(Date.now() + 3_600_000).toUTCString();
    mock.script({ fault: { kind: 'status', status: 429, retryAfter: inAnHour } }, { text: 'never sent' });
    const { run, delays, clock } = setup();
    const result = await run();
    expect(delays).toEqual([]);
    expect(result.retries).toEqual([]);
    expect(clock.now()).toBe(0);
    expect((result.error as Error).message).toMatch(
      new RegExp(
        `^${label[name]}: rate limited \\(429\\); calls to this provider pause (59m\\d\\ds|1h00m) more, past the 10m00s one model call may wait for rate limits`,
      ),
    );
    expect(mock.requests).toHaveLength(1);
  });

  it('retries a 500 with exponential backoff; a 529 without retry-after pauses the provider for the same backoff', async () => {
    mock.script(
      { fault: { kind: 'status', status: 500, message: 'boom' } },
      { fault: { kind: 'status', status: 529, message: 'Overloaded' } },
      { text: 'third time lucky' },
    );
    const { run, delays, clock } = setup();
    const result = await run();

    expect(result.error).toBeUndefined();
    // base 100, random 0.5: 75 for the 500 (a sleep of its own), 75 for the 529 (the gate's pause).
    expect(delays).toEqual([75]);
    expect(clock.now()).toBe(75);
    expect(result.retries.map((r) => [r.attempt, r.reason, r.rateLimited])).toEqual([
      [1, 'server error (500): boom', undefined],
      [1, 'overloaded (529)', true],
    ]);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'third time lucky' }]);
    expect(mock.requests).toHaveLength(3);
  });

  it('rate limits spend no retries: with maxRetries 1, six 429s in a row still end in an answer', async () => {
    const limit = { fault: { kind: 'status', status: 429, retryAfter: 1 } } as const;
    mock.script(limit, limit, limit, limit, limit, limit, { text: 'at last' });
    const { run, clock } = setup(1);
    const result = await run();
    expect(result.error).toBeUndefined();
    expect(result.retries.map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    // 1 s each as asked, but the sixth: limits in a row back off at least exponentially (1.2 s by then).
    expect(clock.now()).toBe(6200);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'at last' }]);
  });

  it('past rateLimitWaitMs of waiting the call fails, saying so, with the status', async () => {
    mock.respond(() => ({ fault: { kind: 'status', status: 429, retryAfter: 1 } }));
    const { run, clock } = setup(4, { rateLimit: { maxWaitMs: 2500 } });
    const result = await run();
    expect((result.error as Error).message).toBe(
      `${label[name]}: rate limited (429); calls to this provider pause 1 s more, past the 2.5 s one model call may wait ` +
        "for rate limits (rateLimitWaitMs; 2 s waited so far): try again later, check the account's rate limits, " +
        'or raise rateLimitWaitMs in settings.',
    );
    expect((result.error as ProviderError).options.status).toBe(429);
    expect(clock.now()).toBe(2000);
    expect(mock.requests).toHaveLength(3);
  });

  it('with 529s left to the retries (--fallback-model), an overloaded model spends them as before', async () => {
    mock.respond(() => ({ fault: { kind: 'status', status: 529, retryAfter: 0, type: 'overloaded_error' } }));
    const { run, delays } = setup(1, { rateLimit: { overloaded: false } });
    const result = await run();
    expect((result.error as ProviderError).options.status).toBe(529);
    expect((result.error as Error).message).toBe(`${label[name]} failed after 1 retry: overloaded (529)`);
    expect(result.retries.map((r) => r.rateLimited)).toEqual([undefined]);
    expect(delays).toEqual([0]);
  });

  it('without a gate (rateLimit: false), a 429 is retried within maxRetries like any failure', async () => {
    mock.respond(() => ({ fault: { kind: 'status', status: 429, retryAfter: 0 } }));
    const { run, delays } = setup(1, { rateLimit: false });
    const result = await run();
    expect((result.error as Error).message).toBe(`${label[name]} failed after 1 retry: rate limited (429)`);
    expect(delays).toEqual([0]);
    expect(waits(result)).toEqual([]);
    expect(mock.requests).toHaveLength(2);
  });

  it('retries a connection reset before any response', async () => {
    mock.script({ fault: { kind: 'reset' } }, { text: 'reconnected' });
    const { run } = setup();
    const result = await run();
    expect(result.error).toBeUndefined();
    expect(result.retries).toHaveLength(1);
    expect(result.retries[0]!.reason).toBe('connection reset');
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'reconnected' }]);
  });

  it('restarts a stream cut mid-message from the start, after a retry event', async () => {
    const text = 'A long answer that gets cut off halfway through the stream.';
    mock.script({ text, fault: { kind: 'cut', afterChunks: 4 } }, { text });
    const { run } = setup();
    const result = await run();

    expect(result.error).toBeUndefined();
    const retryAt = result.events.findIndex((e) => e.type === 'retry');
    expect(retryAt).toBeGreaterThan(0);
    expect(result.retries.map((r) => r.reason)).toEqual(['connection lost mid-stream']);
    // Partial deltas came before the retry; the consumer drops them on `retry`.
    const partial = result.events
      .slice(0, retryAt)
      .flatMap((e) => (e.type === 'text_delta' ? [e.text] : []))
      .join('');
    expect(partial.length).toBeGreaterThan(0);
    expect(text.startsWith(partial)).toBe(true);
    expect(partial.length).toBeLessThan(text.length);
    expect(textAfterLastRetry(result.events)).toBe(text);
    expect(result.events.filter((e) => e.type === 'message_end')).toHaveLength(1);
    expect(result.end?.message.content).toEqual([{ type: 'text', text }]);
    expect(mock.requests).toHaveLength(2);
  });

  it('retries a stream that ends cleanly before its final event', async () => {
    mock.script({ text: 'never finished', fault: { kind: 'truncate', afterChunks: 3 } }, { text: 'finished' });
    const { run } = setup();
    const result = await run();
    expect(result.error).toBeUndefined();
    expect(result.retries).toHaveLength(1);
    expect(result.retries[0]!.reason).toMatch(/^stream ended before the message was complete/);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'finished' }]);
  });

  it('retries a stream that carries a malformed JSON chunk', async () => {
    mock.script({ text: 'first try', fault: { kind: 'malformed', afterChunks: 2 } }, { text: 'clean' });
    const { run } = setup();
    const result = await run();
    expect(result.error).toBeUndefined();
    expect(result.retries).toHaveLength(1);
    expect(result.retries[0]!.reason).toMatch(/^malformed stream data/);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'clean' }]);
  });

  it('retries an error event inside the stream', async () => {
    mock.script({ text: 'partial', fault: { kind: 'stream_error', afterChunks: 2 } }, { text: 'recovered' });
    const { run } = setup();
    const result = await run();
    expect(result.error).toBeUndefined();
    expect(result.retries).toHaveLength(1);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'recovered' }]);
  });

  it('gives up after maxRetries with a one-line ProviderError', async () => {
    mock.respond(() => ({ fault: { kind: 'status', status: 503, message: 'upstream unavailable' } }));
    const { run, delays } = setup(2);
    const result = await run();

    expect(result.error).toBeInstanceOf(ProviderError);
    const error = result.error as ProviderError;
    expect(error.message).toBe(`${label[name]} failed after 2 retries: server error (503): upstream unavailable`);
    expect(error.message).not.toContain('\n');
    expect(error.options.status).toBe(503);
    expect(result.retries.map((r) => r.attempt)).toEqual([1, 2]);
    expect(result.retries.every((r) => r.maxRetries === 2)).toBe(true);
    expect(delays).toEqual([75, 150]);
    expect(mock.requests).toHaveLength(3);
    expect(result.end).toBeUndefined();
  });

  it('retries four times by default', async () => {
    mock.respond(() => ({ fault: { kind: 'status', status: 500 } }));
    const { run, delays } = setup();
    const result = await run();
    expect((result.error as Error).message).toMatch(new RegExp(`^${label[name]} failed after 4 retries: `));
    expect(delays).toHaveLength(4);
    expect(mock.requests).toHaveLength(5);
  });
});
