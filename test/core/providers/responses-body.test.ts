import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/core/providers/create.js';
import { openaiApiFor } from '../../../src/core/providers/models.js';
import { bodyCaches } from '../../../src/core/providers/request-body.js';
import { responsesRequestBody, toResponsesParams } from '../../../src/core/providers/responses-wire.js';
import type { Message } from '../../../src/core/providers/types.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { collect, recordingSleep, request } from '../../support/stream-helpers.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const signal = () => new AbortController().signal;

function provider(openaiApi?: 'responses' | 'chat') {
  return createProvider({
    provider: 'openai',
    apiKey: 'sk-test-key-13579',
    baseURL: mock.openaiBaseURL,
    sleep: recordingSleep().sleep,
    ...(openaiApi ? { openaiApi } : {}),
  });
}

describe('which API a request goes to', () => {
  it("follows the catalogue on OpenAI's own server, the setting everywhere, and Chat on any other server", () => {
    for (const model of ['gpt-5', 'gpt-5-mini', 'gpt-5-codex', 'gpt-5.1-codex-max', 'gpt-5.2', 'o3', 'o4-mini', 'o1']) {
      expect([model, openaiApiFor(model, {})]).toEqual([model, 'responses']);
      expect([model, openaiApiFor(model, { baseURL: 'https://api.openai.com/v1' })]).toEqual([model, 'responses']);
      expect([model, openaiApiFor(model, { baseURL: 'https://us.api.openai.com/v1' })]).toEqual([model, 'responses']);
      expect([model, openaiApiFor(model, { baseURL: 'https://openrouter.ai/api/v1' })]).toEqual([model, 'chat']);
      // A compatible server (Ollama, vLLM, OpenRouter) speaks Chat whatever the model is called.
      expect([model, openaiApiFor(model, { baseURL: 'http://localhost:11434/v1' })]).toEqual([model, 'chat']);
      expect([model, openaiApiFor(model, { api: 'chat' })]).toEqual([model, 'chat']);
    }
    for (const model of ['gpt-4.1', 'gpt-4o-mini', 'gpt-5-chat-latest', 'qwen3-coder']) {
      expect([model, openaiApiFor(model, {})]).toEqual([model, 'chat']);
      expect([model, openaiApiFor(model, { api: 'responses', baseURL: 'http://localhost:8000/v1' })]).toEqual([
        model,
        'responses',
      ]);
    }
  });

  it('openai.api "chat" sends a gpt-5 request to /chat/completions, its effort as reasoning_effort', async () => {
    mock.script({ text: 'from chat' }, { text: 'from responses' });
    const chat = await collect(provider('chat')(request({ model: 'gpt-5', effort: 'high' }), signal()));
    expect(chat.end?.message.content).toEqual([{ type: 'text', text: 'from chat' }]);
    expect(mock.requests[0]!.path).toBe('/v1/chat/completions');
    expect(mock.requests[0]!.body.reasoning_effort).toBe('high');

    await collect(provider('responses')(request({ model: 'gpt-5', effort: 'high' }), signal()));
    expect(mock.requests[1]!.path).toBe('/v1/responses');
    expect(mock.requests[1]!.body.reasoning).toEqual({ effort: 'high' });
    expect(mock.requests[1]!.body.reasoning_effort).toBeUndefined();
  });
});

describe('the Responses request body', () => {
  it('one provider, a growing history: each request is the previous one plus the new items, instructions and tools the same', async () => {
    const stream = provider('responses');
    const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'start' }] }];
    for (let step = 0; step < 3; step += 1) {
      mock.script({ text: `answer ${step}` });
      await collect(stream(request({ model: 'gpt-5', messages: [...history] }), signal()));
      history.push({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: `why ${step}`, signature: `enc_${step}`, itemId: `rs_${step}` },
          { type: 'tool_use', id: `call_${step}`, name: 'read_file', input: { path: `f${step}` } },
        ],
      });
      history.push({ role: 'user', content: [{ type: 'tool_result', toolUseId: `call_${step}`, content: `body ${step}` }] });
    }
    mock.script({ text: 'last' });
    await collect(provider('responses')(request({ model: 'gpt-5', messages: history.slice(0, 5) }), signal()));

    const bodies = mock.requests.map((r) => r.body);
    const [first, second, third, afresh] = bodies.map((b) => b.input as unknown[]);
    expect(second!.slice(0, first!.length)).toEqual(first);
    expect(third!.slice(0, second!.length)).toEqual(second);
    // The kept conversions are what a provider with no history of its own sends.
    expect(third).toEqual(afresh);
    // The cached prefix: everything but the input, to the byte.
    const rest = mock.requests.map((r) => r.raw.slice(0, r.raw.indexOf('"input":')) + r.raw.slice(r.raw.indexOf(',"stream":')));
    expect(new Set(rest).size).toBe(1);
    expect(third!.slice(-3)).toEqual([
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'why 1' }], encrypted_content: 'enc_1' },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"f1"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'body 1' },
    ]);
  });

  it('sends the body as the SDK would have serialized it, byte for byte', async () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'quotes " and \\ and ünïcödé 🎉 and \u2028 and "input":[]' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'grep', input: { pattern: '"input":[]' } }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_1', content: '"input":[]' }] },
    ];
    mock.script({ text: 'ok' });
    const req = request({ model: 'o3', effort: 'low', messages: history });
    await collect(provider('responses')(req, signal()));
    expect(mock.requests[0]!.raw).toBe(JSON.stringify(toResponsesParams(req)));
  });

  it('is JSON.stringify of the parameters whatever the model, prompt, limit and effort; each message serialized once', () => {
    const caches = bodyCaches();
    const tools = request().tools;
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'start' }] },
      // Reasoning the server cannot take back (no encrypted content): no item, so no piece.
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'not sent' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: '', signature: 'enc', itemId: 'rs_1' },
          { type: 'text', text: 'two ' },
          { type: 'text', text: 'calls' },
          { type: 'tool_use', id: 'a', name: 'read_file', input: { path: 'x' } },
          { type: 'tool_use', id: 'b', name: 'read_file', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'a', content: 'A' },
          { type: 'tool_result', toolUseId: 'b', content: 'gone', isError: true },
        ],
      },
      // A reply that ended in its reasoning: the item has nothing after it and is left out.
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'cut', signature: 'enc2', itemId: 'rs_2' }] },
    ];
    for (const model of ['gpt-5', 'test-model', 'm","input":[],"x":"']) {
      for (const system of ['', 'You are a test.', 'a "input":[] b']) {
        for (const effort of [undefined, 'medium', 'max'] as const) {
          for (const maxTokens of [1024, 2048]) {
            const req = request({ model, system, maxTokens, tools, messages: history, ...(effort ? { effort } : {}) });
            expect(responsesRequestBody(req, caches)).toBe(JSON.stringify(toResponsesParams(req)));
          }
        }
      }
    }
    for (const message of history) expect(caches.json.has(message)).toBe(true);
    const input = JSON.parse(responsesRequestBody(request({ model: 'gpt-5', tools, messages: history }), caches)).input;
    expect(input.map((item: { type?: string; role?: string }) => item.type ?? item.role)).toEqual([
      'user',
      'reasoning',
      'assistant',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
    ]);
    expect(input[2]).toEqual({ role: 'assistant', content: 'two calls' });
    expect(responsesRequestBody(request({ tools: [], messages: [] }), bodyCaches())).toBe(
      JSON.stringify(toResponsesParams(request({ tools: [], messages: [] }))),
    );
  });

  it("maps each effort to the model's reasoning.effort, max to xhigh where it takes it, and none to a model that takes none", () => {
    const effortOf = (model: string, effort: 'low' | 'medium' | 'high' | 'max') =>
      toResponsesParams(request({ model, effort })).reasoning?.effort;
    expect(['low', 'medium', 'high', 'max'].map((e) => effortOf('gpt-5', e as 'low'))).toEqual(['low', 'medium', 'high', 'high']);
    expect(effortOf('gpt-5.2', 'max')).toBe('xhigh');
    expect(effortOf('o3', 'medium')).toBe('medium');
    expect(toResponsesParams(request({ model: 'gpt-4.1', effort: 'high' }))).not.toHaveProperty('reasoning');
    expect(toResponsesParams(request({ model: 'gpt-5' }))).not.toHaveProperty('reasoning');
    // Encrypted reasoning is asked of reasoning models only: the API refuses the ask for others.
    expect(toResponsesParams(request({ model: 'gpt-5' })).include).toEqual(['reasoning.encrypted_content']);
    expect(toResponsesParams(request({ model: 'gpt-5-chat-latest' }))).not.toHaveProperty('include');
  });
});
