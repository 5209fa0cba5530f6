import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, type ProviderOptions } from '../../../src/core/providers/create.js';
import { costOf, modelInfo } from '../../../src/core/providers/models.js';
import { INVALID_JSON_KEY } from '../../../src/core/providers/tool-args.js';
import { type Message, ProviderError } from '../../../src/core/providers/types.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { collect, recordingSleep, request } from '../../support/stream-helpers.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const KEY = 'sk-openai-responses-key-246810';
const signal = () => new AbortController().signal;

/** The OpenAI provider sending every request to /responses (the mock is not api.openai.com, so it must be asked). */
function provider(options: Partial<ProviderOptions> = {}) {
  return createProvider({
    provider: 'openai',
    apiKey: KEY,
    baseURL: mock.openaiBaseURL,
    openaiApi: 'responses',
    sleep: recordingSleep().sleep,
    ...options,
  });
}

/** The history after `reply` asked for tools and each got `results` (by call id). */
function afterCalls(before: Message[], reply: Message, results: Record<string, string>): Message[] {
  return [
    ...before,
    reply,
    {
      role: 'user',
      content: Object.entries(results).map(([id, content]) => ({ type: 'tool_result' as const, toolUseId: id, content })),
    },
  ];
}

describe('the OpenAI Responses API through the real SDK', () => {
  it('streams a text turn to /responses, stateless, with instructions and tools, and maps usage', async () => {
    mock.script({ text: 'Hello from the responses mock.', usage: { input: 300, output: 12, cacheRead: 700 } });
    const result = await collect(provider()(request(), signal()));

    expect(result.error).toBeUndefined();
    const deltas = result.events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello from the responses mock.');
    expect(result.events.at(-1)?.type).toBe('message_end');
    expect(result.end?.message).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello from the responses mock.' }],
    });
    expect(result.end?.stopReason).toBe('end_turn');
    // input_tokens 1000 of which 700 cached.
    expect(result.end?.usage).toEqual({ input: 300, output: 12, cacheRead: 700, cacheWrite: 0 });

    const sent = mock.requests[0]!;
    expect(sent.format).toBe('responses');
    expect(sent.path).toBe('/v1/responses');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toMatchObject({ model: 'test-model', instructions: 'You are a test.', stream: true, store: false });
    expect(sent.body.max_output_tokens).toBe(1024);
    expect(sent.body.input).toEqual([{ role: 'user', content: 'Hello there' }]);
    expect(sent.body.tools).toEqual([
      {
        type: 'function',
        name: 'read_file',
        description: 'Read a file from the workspace.',
        parameters: request().tools[0]!.inputSchema,
        strict: false,
      },
      {
        type: 'function',
        name: 'grep',
        description: 'Search file contents.',
        parameters: request().tools[1]!.inputSchema,
        strict: false,
      },
    ]);
    // A model the catalogue does not name as a reasoner: no encrypted reasoning asked for, no effort.
    expect(sent.body.include).toBeUndefined();
    expect(sent.body.reasoning).toBeUndefined();
  });

  it('assembles two parallel function calls and sends them back with their outputs on the next request', async () => {
    mock.script(
      {
        toolCalls: [
          { id: 'call_a', name: 'read_file', args: { path: 'a.ts' } },
          { id: 'call_b', name: 'grep', args: { pattern: 'x+y' } },
        ],
      },
      { text: 'Both read.' },
    );
    const stream = provider();
    const first = await collect(stream(request(), signal()));

    expect(first.end?.stopReason).toBe('tool_use');
    expect(first.end?.message.content).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.ts' } },
      { type: 'tool_use', id: 'call_b', name: 'grep', input: { pattern: 'x+y' } },
    ]);
    expect(first.events.filter((e) => e.type === 'tool_call_start')).toEqual([
      { type: 'tool_call_start', index: 0, id: 'call_a', name: 'read_file' },
      { type: 'tool_call_start', index: 1, id: 'call_b', name: 'grep' },
    ]);
    const args = first.events.flatMap((e) => (e.type === 'tool_call_delta' && e.index === 1 ? [e.argsDelta] : []));
    expect(args.length).toBe(3);
    expect(args.join('')).toBe(JSON.stringify({ pattern: 'x+y' }));
    expect(first.events.filter((e) => e.type === 'tool_call_end')).toHaveLength(2);

    const history: Message[] = [
      ...request().messages,
      first.end!.message,
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'call_a', content: 'A' },
          { type: 'tool_result', toolUseId: 'call_b', content: 'no match', isError: true },
          { type: 'text', text: 'Also, hurry.' },
        ],
      },
    ];
    const second = await collect(stream(request({ messages: history }), signal()));
    // The mock refuses, as the API does, a call without its output or an output without its call.
    expect(second.error).toBeUndefined();
    expect(second.end?.message.content).toEqual([{ type: 'text', text: 'Both read.' }]);
    expect(mock.requests[1]!.body.input).toEqual([
      { role: 'user', content: 'Hello there' },
      { type: 'function_call', call_id: 'call_a', name: 'read_file', arguments: '{"path":"a.ts"}' },
      { type: 'function_call', call_id: 'call_b', name: 'grep', arguments: '{"pattern":"x+y"}' },
      { type: 'function_call_output', call_id: 'call_a', output: 'A' },
      { type: 'function_call_output', call_id: 'call_b', output: 'Error: no match' },
      { role: 'user', content: 'Also, hurry.' },
    ]);
  });

  it("keeps a reasoning model's reasoning item, encrypted content and all, and sends it back before its call", async () => {
    mock.script(
      {
        thinking: 'Read the file before answering.',
        signature: 'enc_opaque_reasoning_1',
        toolCalls: [{ id: 'call_r', name: 'read_file', args: { path: 'x.ts' } }],
      },
      { text: 'It says x.' },
    );
    const stream = provider();
    const first = await collect(stream(request({ model: 'gpt-5' }), signal()));

    expect(mock.requests[0]!.body.include).toEqual(['reasoning.encrypted_content']);
    expect(
      first.events
        .filter((e) => e.type === 'thinking_delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('Read the file before answering.');
    const [thinking, call] = first.end!.message.content;
    expect(thinking).toMatchObject({
      type: 'thinking',
      thinking: 'Read the file before answering.',
      signature: 'enc_opaque_reasoning_1',
    });
    const itemId = (thinking as { itemId?: string }).itemId;
    expect(itemId).toMatch(/^rs_/);
    expect(call).toEqual({ type: 'tool_use', id: 'call_r', name: 'read_file', input: { path: 'x.ts' } });

    const history = afterCalls(request().messages, first.end!.message, { call_r: 'export const x = 1;' });
    const second = await collect(stream(request({ model: 'gpt-5', messages: history }), signal()));
    expect(second.error).toBeUndefined();
    expect(mock.requests[1]!.body.input.slice(1, 3)).toEqual([
      {
        type: 'reasoning',
        id: itemId,
        summary: [{ type: 'summary_text', text: 'Read the file before answering.' }],
        encrypted_content: 'enc_opaque_reasoning_1',
      },
      { type: 'function_call', call_id: 'call_r', name: 'read_file', arguments: '{"path":"x.ts"}' },
    ]);
    expect(mock.requests[1]!.body.previous_response_id).toBeUndefined();
  });

  it('shows reasoning it was not given the encrypted content of, and does not send it back (the server kept nothing)', async () => {
    mock.script(
      { thinking: 'Thinking aloud.', toolCalls: [{ id: 'call_t', name: 'read_file', args: { path: 'y' } }] },
      { text: 'ok' },
    );
    const stream = provider();
    const first = await collect(stream(request(), signal()));
    expect(first.end?.message.content[0]).toEqual({ type: 'thinking', thinking: 'Thinking aloud.' });

    const second = await collect(
      stream(request({ messages: afterCalls(request().messages, first.end!.message, { call_t: 'Y' }) }), signal()),
    );
    // The mock refuses a reasoning item without encrypted content under store: false, as the API does.
    expect(second.error).toBeUndefined();
    expect(mock.requests[1]!.body.input.map((item: { type?: string; role?: string }) => item.type ?? item.role)).toEqual([
      'user',
      'function_call',
      'function_call_output',
    ]);
  });

  it('maps cached and reasoning tokens into usage, priced with reasoning as output', async () => {
    mock.script({ text: 'priced', usage: { input: 1_000, cacheRead: 9_000, output: 2_000, reasoning: 1_500 } });
    const result = await collect(provider()(request({ model: 'gpt-5' }), signal()));
    // Reasoning tokens are a part of output_tokens: counted there, once.
    expect(result.end?.usage).toEqual({ input: 1_000, output: 2_000, cacheRead: 9_000, cacheWrite: 0 });
    // GPT-5: $1.25 in, $10 out, $0.125 cached, per million.
    expect(costOf(result.end!.usage, modelInfo('gpt-5'))).toBeCloseTo((1_000 * 1.25 + 2_000 * 10 + 9_000 * 0.125) / 1e6, 12);
  });

  it('retries a 429 and a 500 on /responses through the same classification and retry path as Chat', async () => {
    // No wait to speak of (retry-after 0, no backoff), whichever layer waits out a rate limit.
    mock.script(
      { fault: { kind: 'status', status: 429, retryAfter: 0 } },
      { fault: { kind: 'status', status: 500 } },
      { text: 'after the wait' },
    );
    const result = await collect(provider({ retryBaseDelayMs: 0 })(request(), signal()));

    expect(result.error).toBeUndefined();
    expect(result.retries.map((r) => r.reason)).toEqual(['rate limited (429)', expect.stringContaining('server error (500)')]);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'after the wait' }]);
    expect(mock.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses', '/v1/responses']);
  });

  it('gives up on a 400 from /responses at once, in the words it gives Chat', async () => {
    mock.script({ fault: { kind: 'status', status: 400, message: "Unsupported parameter: 'reasoning.effort'" } });
    const result = await collect(provider()(request(), signal()));
    expect(result.retries).toHaveLength(0);
    expect((result.error as Error).message).toBe("OpenAI rejected the request (400): Unsupported parameter: 'reasoning.effort'");
  });
});

describe('a hostile Responses stream, handled as on Chat', () => {
  it('retries a stream whose event data is not JSON', async () => {
    mock.script({ text: 'first try', fault: { kind: 'malformed', afterChunks: 3 } }, { text: 'second try' });
    const result = await collect(provider()(request(), signal()));
    expect(result.retries).toHaveLength(1);
    expect(result.retries[0]!.reason).toMatch(/malformed stream data/);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'second try' }]);
  });

  it('keeps function call arguments that are not JSON for the model to see', async () => {
    mock.script({ toolCalls: [{ id: 'call_bad', name: 'read_file', args: '{"path": unquoted' }] });
    const result = await collect(provider()(request(), signal()));
    expect(result.end?.message.content).toEqual([
      { type: 'tool_use', id: 'call_bad', name: 'read_file', input: { [INVALID_JSON_KEY]: '{"path": unquoted' } },
    ]);
  });

  it('retries a stream that ends cleanly, or is cut, before response.completed', async () => {
    mock.script(
      { text: 'never finished', fault: { kind: 'truncate', afterChunks: 4 } },
      { text: 'cut off', fault: { kind: 'cut', afterChunks: 3 } },
      { text: 'whole' },
    );
    const result = await collect(provider()(request(), signal()));
    expect(result.retries).toHaveLength(2);
    expect(result.retries[0]!.reason).toMatch(/no response\.completed/);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'whole' }]);
  });

  it('retries an error event or a failed response a retry can get past; gives up at once on one the request caused', async () => {
    mock.script(
      { text: 'x', fault: { kind: 'stream_error', afterChunks: 2, type: 'server_error', message: 'The server had an error' } },
      { rawEvents: [{ type: 'response.failed', response: { error: { code: 'rate_limit_exceeded', message: 'Slow down' } } }] },
      { text: 'recovered' },
    );
    const result = await collect(provider()(request(), signal()));
    expect(result.retries.map((r) => r.reason)).toEqual(['stream error: The server had an error', 'stream error: Slow down']);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'recovered' }]);

    mock.reset();
    mock.script({
      text: 'x',
      fault: { kind: 'stream_error', afterChunks: 2, type: 'invalid_prompt', message: 'Invalid prompt: flagged' },
    });
    const refused = await collect(provider()(request(), signal()));
    expect(refused.retries).toHaveLength(0);
    expect(refused.error).toBeInstanceOf(ProviderError);
    expect((refused.error as Error).message).toBe('OpenAI rejected the request: Invalid prompt: flagged');
    expect(mock.requests).toHaveLength(1);
  });

  it('ends a response cut short by max_output_tokens with max_tokens', async () => {
    mock.script({ text: 'partial answer', stopReason: 'max_tokens' });
    const result = await collect(provider()(request(), signal()));
    expect(result.end?.stopReason).toBe('max_tokens');
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'partial answer' }]);
  });
});
