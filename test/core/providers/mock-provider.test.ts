/** The mock provider server is test infrastructure for the whole suite; these pin its behaviour down. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../support/fake-clock.js';
import { estimateTokens, startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { until } from '../../support/until.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function post(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
}

const anthropicRequest = (stream: boolean) => ({
  model: 'claude-x',
  max_tokens: 10,
  stream,
  messages: [{ role: 'user', content: 'hi' }],
});
const openaiRequest = (stream: boolean) => ({
  model: 'gpt-x',
  stream,
  stream_options: stream ? { include_usage: true } : undefined,
  messages: [{ role: 'user', content: 'hi' }],
});

// Response bodies here are whatever the mock sent; tests inspect them freely.
async function json(response: Response | Promise<Response>): Promise<any> {
  return (await response).json();
}

function sseData(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6));
}

describe('mock provider', () => {
  it('fails loudly with a 500 when no reply was scripted', async () => {
    const anthropic = await post('/v1/messages', anthropicRequest(true));
    expect(anthropic.status).toBe(500);
    expect((await json(anthropic)).error.message).toMatch(/^mock provider: no scripted reply/);
    const openai = await post('/v1/chat/completions', openaiRequest(true));
    expect(openai.status).toBe(500);
    expect((await json(openai)).error.message).toMatch(/^mock provider: no scripted reply/);
  });

  it('records requests with headers, parsed body and raw text; reset clears them', async () => {
    mock.script({ text: 'a' });
    await json(post('/v1/messages', anthropicRequest(false)));
    expect(mock.requests).toHaveLength(1);
    const recorded = mock.requests[0]!;
    expect(recorded).toMatchObject({ format: 'anthropic', path: '/v1/messages', body: anthropicRequest(false) });
    expect(JSON.parse(recorded.raw)).toEqual(anthropicRequest(false));
    expect(recorded.headers['content-type']).toBe('application/json');
    expect(recorded.receivedAt).toBeGreaterThan(0);
    mock.script({ text: 'unused' });
    mock.reset();
    expect(mock.requests).toHaveLength(0);
    expect(mock.pending()).toBe(0);
  });

  it('answers non-streaming requests with a plain JSON body in each format', async () => {
    mock.script(
      { text: 'hello', toolCalls: [{ id: 't1', name: 'grep', args: { q: 1 } }], usage: { input: 5, output: 6, cacheRead: 7 } },
      { text: 'hello', toolCalls: [{ id: 'c1', name: 'grep', args: { q: 1 } }], usage: { input: 5, output: 6, cacheRead: 7 } },
    );
    const anthropic = await json(post('/v1/messages', anthropicRequest(false)));
    expect(anthropic).toMatchObject({
      type: 'message',
      model: 'claude-x',
      content: [
        { type: 'text', text: 'hello' },
        { type: 'tool_use', id: 't1', name: 'grep', input: { q: 1 } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 5, output_tokens: 6, cache_read_input_tokens: 7, cache_creation_input_tokens: 0 },
    });
    const openai = await json(post('/v1/chat/completions', openaiRequest(false)));
    expect(openai).toMatchObject({
      object: 'chat.completion',
      choices: [
        {
          message: {
            role: 'assistant',
            content: 'hello',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'grep', arguments: '{"q":1}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 12, completion_tokens: 6, prompt_tokens_details: { cached_tokens: 7 } },
    });
  });

  it('estimates usage from the request and reply when none is given', async () => {
    mock.script({ text: 'x'.repeat(40) });
    const body = await json(post('/v1/messages', anthropicRequest(false)));
    expect(body.usage.input_tokens).toBe(estimateTokens(mock.requests[0]!.raw));
    expect(body.usage.output_tokens).toBe(10);
  });

  it('ends an OpenAI stream with the usage chunk (only when asked) and [DONE]', async () => {
    mock.script({ text: 'hi' }, { text: 'hi' });
    const withUsage = sseData(await (await post('/v1/chat/completions', openaiRequest(true))).text());
    expect(withUsage.at(-1)).toBe('[DONE]');
    expect(JSON.parse(withUsage.at(-2)!)).toMatchObject({ choices: [], usage: { completion_tokens: 1 } });
    const without = sseData(
      await (await post('/v1/chat/completions', { ...openaiRequest(true), stream_options: undefined })).text(),
    );
    expect(without.some((d) => d.includes('"usage"'))).toBe(false);
  });

  it('uses the responder when the script is empty, deciding per request', async () => {
    mock.script({ text: 'scripted first' });
    mock.respond((req) => ({ text: `for ${req.body.model}` }));
    const models = ['m1', 'm2', 'm3'];
    const texts = await Promise.all(
      models.map(async (model) => {
        const body = await json(post('/v1/messages', { ...anthropicRequest(false), model }));
        return body.content[0].text as string;
      }),
    );
    // Whichever request came first took the scripted reply; the responder answered the rest by model.
    expect(texts.filter((t) => t === 'scripted first')).toHaveLength(1);
    texts.forEach((text, i) => expect([`for ${models[i]}`, 'scripted first']).toContain(text));
  });

  it('sends the status fault in the provider error shape with retry-after', async () => {
    mock.script(
      { fault: { kind: 'status', status: 529 } },
      { fault: { kind: 'status', status: 429, retryAfter: 3, message: 'slow down' } },
    );
    const anthropic = await post('/v1/messages', anthropicRequest(true));
    expect(anthropic.status).toBe(529);
    expect(await json(anthropic)).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    const openai = await post('/v1/chat/completions', openaiRequest(true));
    expect(openai.status).toBe(429);
    expect(openai.headers.get('retry-after')).toBe('3');
    expect(await json(openai)).toEqual({
      error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
  });

  it('waits the configured latency plus the reply delay before the first byte', async () => {
    const clock = new FakeClock();
    const own = await startMockProvider({ timers: clock, latencyMs: 150 });
    try {
      own.script({ text: 'late', delayMs: 50 });
      const response = fetch(`${own.url}/v1/messages`, { method: 'POST', body: JSON.stringify(anthropicRequest(false)) });
      await until(() => clock.pending() === 1, { what: 'the mock to schedule its answer' });
      expect(clock.nextAt()).toBe(200);
      clock.advance(199);
      expect(own.inFlight()).toBe(1);
      clock.advance(1);
      expect((await json(response)).content[0].text).toBe('late');
    } finally {
      await own.close();
    }
  });

  it('counts requests in flight, and the most at once', async () => {
    mock.script({ fault: { kind: 'hang' } }, { fault: { kind: 'hang' } }, { text: 'third' });
    const controller = new AbortController();
    const hanging = [1, 2].map(() => post('/v1/messages', anthropicRequest(true), controller.signal).catch(() => undefined));
    await until(() => mock.requests.length === 2, { what: 'two hanging requests' });
    expect(mock.inFlight()).toBe(2);
    controller.abort();
    await Promise.all(hanging);
    await until(() => mock.inFlight() === 0, { what: 'the aborted requests to be closed', observe: () => mock.inFlight() });
    await json(post('/v1/messages', anthropicRequest(false)));
    expect(mock.maxInFlight()).toBe(2);
    expect(mock.maxInFlight((r) => r.body.stream === false)).toBe(1);
    expect(mock.requests.every((r) => r.answeredAt !== undefined)).toBe(true);
  });

  it('stalls after some events until the client goes away', async () => {
    mock.script({ text: 'a reply that never finishes', fault: { kind: 'stall', afterChunks: 4 } });
    const controller = new AbortController();
    const response = await post('/v1/messages', anthropicRequest(true), controller.signal);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('text_delta')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended instead of stalling: ${text}`);
      text += new TextDecoder().decode(value);
    }
    expect(mock.inFlight()).toBe(1);
    controller.abort();
    await until(() => mock.inFlight() === 0, { what: 'the stalled request to be closed', observe: () => mock.inFlight() });
  });

  it('cuts the stream after the given number of events', async () => {
    mock.script({ text: 'some text that is long enough', fault: { kind: 'cut', afterChunks: 2 } });
    const response = await post('/v1/messages', anthropicRequest(true));
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });

  it('a hanging request ends when the client aborts', async () => {
    mock.script({ fault: { kind: 'hang' } }, { text: 'after' });
    const controller = new AbortController();
    const pending = post('/v1/messages', anthropicRequest(true), controller.signal);
    await until(() => mock.requests.length === 1, { what: 'the request to reach the mock' });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    // The server is still healthy for the next request.
    const next = await json(post('/v1/messages', anthropicRequest(false)));
    expect(next.content[0].text).toBe('after');
  });

  it('close() ends requests that are still hanging', async () => {
    const own = await startMockProvider();
    own.script({ fault: { kind: 'hang' } });
    const pending = fetch(`${own.url}/v1/messages`, { method: 'POST', body: JSON.stringify(anthropicRequest(true)) });
    await until(() => own.requests.length === 1, { what: 'the request to reach the mock' });
    await own.close();
    await expect(pending).rejects.toThrow();
  });

  it('404s unknown routes', async () => {
    const response = await post('/v1/nothing', {});
    expect(response.status).toBe(404);
    expect(mock.requests).toHaveLength(0);
  });
});
