import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/core/providers/create.js';
import { DEFAULT_DELAYS, retryDelay, sleep } from '../../../src/core/providers/retry.js';
import { ProviderError, type ProviderName } from '../../../src/core/providers/types.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { collect, recordingSleep, request, textAfterLastRetry } from '../../support/stream-helpers.js';

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
  function setup(maxRetries?: number) {
    const recorder = recordingSleep();
    const baseURL = name === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL;
    const stream = createProvider({
      provider: name,
      apiKey: 'sk-retry-test-key-0001',
      baseURL,
      maxRetries,
      sleep: recorder.sleep,
      random: () => 0.5,
      retryBaseDelayMs: 100,
    });
    const run = () => collect(stream(request(), new AbortController().signal));
    return { run, delays: recorder.delays };
  }

  it('retries a 429 after the retry-after the server sent', async () => {
    mock.script({ fault: { kind: 'status', status: 429, retryAfter: 7 } }, { text: 'after the rate limit' });
    const { run, delays } = setup();
    const result = await run();

    expect(result.error).toBeUndefined();
    expect(delays).toEqual([7000]);
    expect(result.retries).toEqual([{ type: 'retry', attempt: 1, maxRetries: 4, delayMs: 7000, reason: 'rate limited (429)' }]);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'after the rate limit' }]);
    expect(mock.requests).toHaveLength(2);
    expect(mock.requests[1]!.raw).toBe(mock.requests[0]!.raw);
  });

  it('honours retry-after given as an HTTP date', async () => {
    // Half a minute away (to the second the date carries): far from the 75 ms backoff an
    // unread header would give. Exact dates are parsed in errors.test.ts.
    const soon = new Date(Date.now() + 30_000).toUTCString();
    mock.script({ fault: { kind: 'status', status: 429, retryAfter: soon } }, { text: 'ok' });
    const { run, delays } = setup();
    const result = await run();
    expect(result.error).toBeUndefined();
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThan(25_000);
    expect(delays[0]).toBeLessThanOrEqual(30_000);
  });

  it('an HTTP date an hour away ends the call at once, saying what the server asked', async () => {
    const inAnHour = new Date(Date.now() + 3_600_000).toUTCString();
    mock.script({ fault: { kind: 'status', status: 429, retryAfter: inAnHour } }, { text: 'never sent' });
    const { run, delays } = setup();
    const result = await run();
    expect(delays).toEqual([]);
    expect(result.retries).toEqual([]);
    expect((result.error as Error).message).toMatch(
      new RegExp(
        `^${label[name]}: rate limited \\(429\\), and the server asked to wait (59m\\d\\ds|1h00m) before a retry; outrider waits at most 60 s, so it did not`,
      ),
    );
    expect(mock.requests).toHaveLength(1);
  });

  it('retries 500 and 529 with exponential backoff', async () => {
    mock.script(
      { fault: { kind: 'status', status: 500, message: 'boom' } },
      { fault: { kind: 'status', status: 529, message: 'Overloaded' } },
      { text: 'third time lucky' },
    );
    const { run, delays } = setup();
    const result = await run();

    expect(result.error).toBeUndefined();
    // base 100, random 0.5: 75 then 150.
    expect(delays).toEqual([75, 150]);
    expect(result.retries.map((r) => [r.attempt, r.reason])).toEqual([
      [1, 'server error (500): boom'],
      [2, 'overloaded (529)'],
    ]);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'third time lucky' }]);
    expect(mock.requests).toHaveLength(3);
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
