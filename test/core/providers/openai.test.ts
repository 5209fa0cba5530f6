import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/core/providers/create.js';
import { openAIRequestBody, toOpenAIParams } from '../../../src/core/providers/openai.js';
import { bodyCaches } from '../../../src/core/providers/request-body.js';
import { INVALID_JSON_KEY } from '../../../src/core/providers/tool-args.js';
import type { Message } from '../../../src/core/providers/types.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { collect, recordingSleep, request } from '../../support/stream-helpers.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function provider(apiKey = 'sk-openai-test-key-987654') {
  return createProvider({ provider: 'openai', apiKey, baseURL: mock.openaiBaseURL, sleep: recordingSleep().sleep });
}

describe('openai provider through the real SDK', () => {
  it('streams text and normalizes usage so input excludes cached tokens', async () => {
    mock.script({ text: 'Hello from the chat completions mock.', usage: { input: 300, output: 12, cacheRead: 700 } });
    const result = await collect(provider()(request(), new AbortController().signal));

    expect(result.error).toBeUndefined();
    const deltas = result.events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello from the chat completions mock.');
    expect(result.events.filter((e) => e.type === 'message_end')).toHaveLength(1);
    expect(result.events.at(-1)?.type).toBe('message_end');
    expect(result.end?.message).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello from the chat completions mock.' }],
    });
    expect(result.end?.stopReason).toBe('end_turn');
    // The wire said prompt_tokens 1000 with 700 cached.
    expect(result.end?.usage).toEqual({ input: 300, output: 12, cacheRead: 700, cacheWrite: 0 });
  });

  it('assembles several tool calls from id/name chunks and argument fragments', async () => {
    mock.script({
      toolCalls: [
        { id: 'call_a', name: 'read_file', args: { path: 'README.md' } },
        { id: 'call_b', name: 'grep', args: { pattern: 'x+y', flags: ['i'] } },
      ],
    });
    const result = await collect(provider()(request(), new AbortController().signal));

    expect(result.end?.stopReason).toBe('tool_use');
    expect(result.end?.message.content).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'README.md' } },
      { type: 'tool_use', id: 'call_b', name: 'grep', input: { pattern: 'x+y', flags: ['i'] } },
    ]);
    const starts = result.events.filter((e) => e.type === 'tool_call_start');
    expect(starts).toEqual([
      { type: 'tool_call_start', index: 0, id: 'call_a', name: 'read_file' },
      { type: 'tool_call_start', index: 1, id: 'call_b', name: 'grep' },
    ]);
    const args = result.events.flatMap((e) => (e.type === 'tool_call_delta' && e.index === 1 ? [e.argsDelta] : []));
    expect(args.length).toBe(3);
    expect(args.join('')).toBe(JSON.stringify({ pattern: 'x+y', flags: ['i'] }));
    expect(result.events.filter((e) => e.type === 'tool_call_end')).toHaveLength(2);
  });

  it('captures reasoning_content as thinking', async () => {
    mock.script({ thinking: 'Considering options.', text: 'Answer.' });
    const result = await collect(provider()(request(), new AbortController().signal));
    expect(result.events.some((e) => e.type === 'thinking_delta')).toBe(true);
    expect(result.end?.message.content).toEqual([
      { type: 'thinking', thinking: 'Considering options.' },
      { type: 'text', text: 'Answer.' },
    ]);
  });

  it('keeps malformed tool arguments under INVALID_JSON_KEY', async () => {
    mock.script({ toolCalls: [{ id: 'call_x', name: 'read_file', args: '{"path": unquoted}' }] });
    const result = await collect(provider()(request(), new AbortController().signal));
    expect(result.end?.message.content).toEqual([
      { type: 'tool_use', id: 'call_x', name: 'read_file', input: { [INVALID_JSON_KEY]: '{"path": unquoted}' } },
    ]);
  });

  it('sends system first, assistant tool_calls, one tool message per result, and asks for usage', async () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Look at two files' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'dropped on the wire' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a' } },
          { type: 'tool_use', id: 'call_2', name: 'read_file', input: { path: 'b' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'call_1', content: 'A' },
          { type: 'tool_result', toolUseId: 'call_2', content: 'no such file', isError: true },
          { type: 'text', text: 'Also, hurry.' },
        ],
      },
    ];
    mock.script({ text: 'ok' });
    await collect(provider()(request({ messages: history, maxTokens: 777 }), new AbortController().signal));

    const sent = mock.requests[0]!;
    expect(sent.format).toBe('openai');
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-openai-test-key-987654');
    expect(sent.body.stream).toBe(true);
    expect(sent.body.stream_options).toEqual({ include_usage: true });
    expect(sent.body.max_tokens).toBe(777);
    expect(sent.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'read_file',
          description: 'Read a file from the workspace.',
          parameters: request().tools[0]!.inputSchema,
        },
      },
      {
        type: 'function',
        function: { name: 'grep', description: 'Search file contents.', parameters: request().tools[1]!.inputSchema },
      },
    ]);
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'Look at two files' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
          { id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'A' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: no such file' },
      { role: 'user', content: 'Also, hurry.' },
    ]);
  });

  it('one provider, a growing history: each request is the previous one plus the new messages, as converted afresh', async () => {
    const stream = provider();
    const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'start' }] }];
    for (let step = 0; step < 3; step += 1) {
      mock.script({ text: `answer ${step}` });
      await collect(stream(request({ messages: [...history] }), new AbortController().signal));
      history.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id: `call_${step}`, name: 'read_file', input: { path: `f${step}` } }],
      });
      history.push({ role: 'user', content: [{ type: 'tool_result', toolUseId: `call_${step}`, content: `body ${step}` }] });
    }
    const fresh = provider();
    mock.script({ text: 'last' });
    await collect(fresh(request({ messages: history.slice(0, 5) }), new AbortController().signal));
    const [first, second, third, afresh] = mock.requests.map((r) => r.body.messages as unknown[]);
    expect(second!.slice(0, first!.length)).toEqual(first);
    expect(third!.slice(0, second!.length)).toEqual(second);
    // The kept conversions are what a provider with no history of its own sends.
    expect(third).toEqual(afresh);
    expect(third!.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'body 1' });
  });

  it('sends the body as the SDK would have serialized it, byte for byte', async () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'quotes " and \\ and ünïcödé 🎉 and \u2028' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'grep', input: { pattern: '"messages":[]' } }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_1', content: '"messages":[]' }] },
    ];
    mock.script({ text: 'ok' });
    await collect(provider()(request({ messages: history }), new AbortController().signal));
    expect(mock.requests[0]!.raw).toBe(JSON.stringify(toOpenAIParams(request({ messages: history }))));
  });

  it('the body is JSON.stringify of the parameters; each history message is serialized once and kept by identity', () => {
    const caches = bodyCaches();
    const serialized = caches.json;
    // One tool list throughout, as a session has: the head kept for it must follow every other change.
    const tools = request().tools;
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'start' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'not sent' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'two calls' },
          { type: 'tool_use', id: 'a', name: 'read_file', input: { path: 'x' } },
          { type: 'tool_use', id: 'b', name: 'read_file', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'a', content: 'A' },
          { type: 'tool_result', toolUseId: 'b', content: 'gone', isError: true },
          { type: 'text', text: 'and more' },
        ],
      },
    ];
    // A model name that holds the very text the history is joined in at, and no system prompt.
    for (const model of ['gpt-test', 'm","messages":[],"x":"']) {
      for (const system of ['', 'You are a test.']) {
        for (const tokenParam of ['max_tokens', 'max_completion_tokens'] as const) {
          for (const maxTokens of [1024, 2048]) {
            const req = request({ model, system, maxTokens, tools, messages: history });
            expect(openAIRequestBody(req, tokenParam, caches)).toBe(JSON.stringify(toOpenAIParams(req, tokenParam)));
          }
        }
      }
    }
    for (const message of history) expect(serialized.has(message)).toBe(true);
    // Kept by identity: a message already in the cache is not converted again.
    serialized.set(history[0]!, '{"role":"user","content":"from the cache"}');
    expect(JSON.parse(openAIRequestBody(request({ tools, messages: history }), 'max_tokens', caches)).messages[1]).toEqual({
      role: 'user',
      content: 'from the cache',
    });
    expect(openAIRequestBody(request({ tools: [], messages: [] }), 'max_tokens', bodyCaches())).toBe(
      JSON.stringify(toOpenAIParams(request({ tools: [], messages: [] }))),
    );
  });

  it('serializes the parameters around the history once per tool list while nothing else changes', () => {
    const caches = bodyCaches();
    const req = request();
    openAIRequestBody(req, 'max_tokens', caches);
    const kept = caches.head.get(req.tools)!;
    // A stand-in for the kept head: the next request of the same session is built around it.
    caches.head.set(req.tools, { ...kept, json: kept.json.replace('"stream":true', '"stream":true,"kept":1') });
    expect(JSON.parse(openAIRequestBody({ ...req, messages: [] }, 'max_tokens', caches)).kept).toBe(1);
    // Another session's tools (a sub-agent's) have a head of their own.
    const other = request({ tools: [...req.tools] });
    expect(openAIRequestBody(other, 'max_tokens', caches)).toBe(JSON.stringify(toOpenAIParams(other)));
    expect(JSON.parse(openAIRequestBody(req, 'max_tokens', caches)).kept).toBe(1);
  });

  it("keeps a user message's text blocks apart with a blank line; an assistant's are joined as they came", () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first question' },
          { type: 'text', text: 'next question' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'one ' },
          { type: 'text', text: 'reply' },
        ],
      },
    ];
    const params = toOpenAIParams({ model: 'm', system: '', messages, tools: [], maxTokens: 10 });
    expect(params.messages).toEqual([
      { role: 'user', content: 'first question\n\nnext question' },
      { role: 'assistant', content: 'one reply' },
    ]);
  });

  it('sends no tools key when there are no tools, and tolerates a server that sends no usage', async () => {
    // An Ollama-style local server: no key needed, and no usage chunk in the stream.
    mock.script({ text: 'local model reply', omitUsage: true });
    const local = createProvider({ provider: 'openai', apiKey: '', baseURL: mock.openaiBaseURL });
    const result = await collect(local(request({ tools: [] }), new AbortController().signal));

    expect(result.error).toBeUndefined();
    expect(mock.requests[0]!.body.tools).toBeUndefined();
    expect(result.end?.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'local model reply' }] });
    expect(result.end?.usage).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
  });

  it('switches to max_completion_tokens when the server asks for it', async () => {
    mock.script(
      {
        fault: {
          kind: 'status',
          status: 400,
          message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        },
      },
      { text: 'fine' },
      { text: 'again' },
    );
    const stream = provider();
    const first = await collect(stream(request(), new AbortController().signal));
    expect(first.error).toBeUndefined();
    expect(first.end?.message.content).toEqual([{ type: 'text', text: 'fine' }]);
    expect(mock.requests[1]!.body.max_completion_tokens).toBe(1024);
    expect(mock.requests[1]!.body.max_tokens).toBeUndefined();
    // Learned once: the next call goes straight to the new parameter.
    await collect(stream(request(), new AbortController().signal));
    expect(mock.requests).toHaveLength(3);
    expect(mock.requests[2]!.body.max_completion_tokens).toBe(1024);
  });
});
