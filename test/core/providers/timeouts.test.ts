/**
 * Stream timeouts and per-request signals, through the real SDKs against the mock provider.
 * Time is a fake clock: the watchdog's timers fire only when a test advances it.
 */
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, type ProviderOptions } from '../../../src/core/providers/create.js';
import { ProviderError, type ProviderName, type StreamEvent } from '../../../src/core/providers/types.js';
import { FakeClock, settle } from '../../support/fake-clock.js';
import { refusedURL, startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { collect, recordingSleep, request, textAfterLastRetry } from '../../support/stream-helpers.js';
import { until } from '../../support/until.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const FIRST_BYTE = 60_000;
const IDLE = 180_000;
const label: Record<ProviderName, string> = { anthropic: 'Anthropic', openai: 'OpenAI' };

/** Drains a stream in the background; `events` fills as they arrive. */
function drain(stream: AsyncIterable<StreamEvent>) {
  const events: StreamEvent[] = [];
  const done = (async () => {
    try {
      for await (const event of stream) events.push(event);
      return undefined;
    } catch (error) {
      return error;
    }
  })();
  return { events, done, retries: () => events.filter((e) => e.type === 'retry') };
}

describe.each(['anthropic', 'openai'] as const)('%s stream timeouts', (name) => {
  const baseURL = () => (name === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL);
  // A first text delta, then only pings: the client has seen content when the delta arrives.
  const pingsAfterText = { text: 'partial answer', fault: { kind: 'pings', afterChunks: name === 'anthropic' ? 4 : 2 } } as const;
  const sawText = (events: StreamEvent[], count = 1) => events.filter((e) => e.type === 'text_delta').length >= count;
  function provider(clock: FakeClock, extra: Partial<ProviderOptions> = {}) {
    return createProvider({
      provider: name,
      apiKey: 'sk-timeout-test-0001',
      baseURL: baseURL(),
      sleep: recordingSleep().sleep,
      clock,
      ...extra,
    });
  }

  it('a server that accepts and never answers is retried after the first-byte timeout', async () => {
    mock.script({ fault: { kind: 'hang' } }, { text: 'second try' });
    const clock = new FakeClock();
    const run = drain(provider(clock)(request(), new AbortController().signal));
    await until(() => mock.requests.length === 1, { what: 'the first request' });

    clock.advance(FIRST_BYTE - 1);
    await settle();
    expect(run.retries()).toEqual([]);
    clock.advance(1);

    expect(await run.done).toBeUndefined();
    expect(run.retries()).toEqual([
      { type: 'retry', attempt: 1, maxRetries: 4, delayMs: expect.any(Number), reason: 'no response within 60 s' },
    ]);
    expect(run.events.at(-1)).toMatchObject({
      type: 'message_end',
      message: { content: [{ type: 'text', text: 'second try' }] },
    });
    expect(mock.requests).toHaveLength(2);
  });

  it('gives up after the retries with a message naming the setting to raise', async () => {
    mock.script({ fault: { kind: 'hang' } }, { fault: { kind: 'hang' } });
    const clock = new FakeClock();
    const run = drain(provider(clock, { maxRetries: 1 })(request(), new AbortController().signal));
    await until(() => mock.requests.length === 1, { what: 'the first request' });
    clock.advance(FIRST_BYTE);
    await until(() => mock.requests.length === 2, { what: 'the retry' });
    clock.advance(FIRST_BYTE);

    const error = await run.done;
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toBe(
      `${label[name]} failed after 1 retry: no response within 60 s: if the server needs longer to start answering, raise firstByteTimeoutMs in settings.`,
    );
  });

  it('keep-alive pings do not count as content: a stream of only pings times out', async () => {
    mock.script(pingsAfterText, { text: 'second try' });
    const clock = new FakeClock();
    const run = drain(provider(clock)(request(), new AbortController().signal));
    await until(() => sawText(run.events), { what: 'the first text delta' });

    clock.advance(IDLE - 1);
    const seen = mock.pingsSent();
    await until(() => mock.pingsSent() >= seen + 3, { what: 'more pings' });
    await settle();
    expect(run.retries()).toEqual([]);
    clock.advance(1);

    expect(await run.done).toBeUndefined();
    expect(run.retries().map((e) => e.reason)).toEqual(['no data for 180 s']);
    expect(textAfterLastRetry(run.events)).toBe('second try');
    expect(run.events.at(-1)).toMatchObject({
      type: 'message_end',
      message: { content: [{ type: 'text', text: 'second try' }] },
    });
  });

  it('content resets the idle timer: a slow stream that keeps sending finishes', async () => {
    // Three text deltas (12 characters each), 30 ms apart in real time.
    mock.script({ text: 'aaaaaaaaaaaabbbbbbbbbbbbcccccccccccc', chunkDelayMs: 30 });
    const clock = new FakeClock();
    const run = drain(provider(clock)(request(), new AbortController().signal));
    let seen = 0;
    let finished = false;
    void run.done.then(() => (finished = true));
    // Almost an idle timeout after each delta: together far beyond one.
    while (!finished) {
      const deltas = run.events.filter((e) => e.type === 'text_delta').length;
      if (deltas > seen) {
        seen = deltas;
        clock.advance(IDLE - 1);
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(await run.done).toBeUndefined();
    expect(seen).toBe(3);
    expect(run.retries()).toEqual([]);
  });

  it('the settings are honoured: tiny timeouts fire at their own values', async () => {
    mock.script({ fault: { kind: 'hang' } }, pingsAfterText, { text: 'third try' });
    const clock = new FakeClock();
    const run = drain(provider(clock, { firstByteTimeoutMs: 500, idleTimeoutMs: 1500 })(request(), new AbortController().signal));
    await until(() => mock.requests.length === 1, { what: 'the first request' });
    clock.advance(500);
    await until(() => sawText(run.events), { what: 'text on the retry' });
    clock.advance(1499);
    await settle();
    expect(run.retries()).toHaveLength(1);
    clock.advance(1);
    expect(await run.done).toBeUndefined();
    expect(run.retries().map((e) => e.reason)).toEqual(['no response within 500 ms', 'no data for 1.5 s']);
  });

  it('an abort during a timed-out wait is an abort, not a retry', async () => {
    mock.script({ fault: { kind: 'hang' } });
    const clock = new FakeClock();
    const controller = new AbortController();
    const run = drain(provider(clock)(request(), controller.signal));
    await until(() => mock.requests.length === 1, { what: 'the first request' });
    controller.abort();
    clock.advance(FIRST_BYTE);
    expect(((await run.done) as Error).name).toBe('AbortError');
    expect(run.retries()).toEqual([]);
  });

  it('no timer is left behind once a call is over', async () => {
    mock.script({ text: 'quick' });
    const clock = new FakeClock();
    const result = await collect(provider(clock)(request(), new AbortController().signal));
    expect(result.error).toBeUndefined();
    expect(clock.pending()).toBe(0);
  });

  it('12 model calls on one turn signal: no listener-leak warning, no listener left on the signal', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 12; i++) mock.script({ text: `reply ${i}` });
      const turn = new AbortController();
      const stream = createProvider({ provider: name, apiKey: 'sk-listener-test-01', baseURL: baseURL() });
      for (let i = 0; i < 12; i++) {
        const result = await collect(stream(request(), turn.signal));
        expect(result.error).toBeUndefined();
      }
      // Warnings are emitted on a later tick.
      await settle();
      expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
      expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('connection refused on a loopback address fails after one quick retry', async () => {
    const url = await refusedURL();
    const base = name === 'anthropic' ? url : `${url}/v1`;
    const recorder = recordingSleep();
    const stream = createProvider({ provider: name, apiKey: 'sk-refused-test-01', baseURL: base, sleep: recorder.sleep });
    const result = await collect(stream(request(), new AbortController().signal));

    expect(result.retries.map((r) => [r.attempt, r.maxRetries])).toEqual([[1, 1]]);
    expect(recorder.delays).toEqual([250]);
    expect((result.error as Error).message).toBe(
      `${label[name]} failed after 1 retry: connection refused by the base URL ${base}: check the base URL ${base} (set by --base-url, the baseURL setting or ${name === 'anthropic' ? 'ANTHROPIC_BASE_URL' : 'OPENAI_BASE_URL'}) and that the server there is running.`,
    );
  });
});
