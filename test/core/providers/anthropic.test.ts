import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicRequestBody, toAnthropicParams } from '../../../src/core/providers/anthropic.js';
import { bodyCaches } from '../../../src/core/providers/request-body.js';
import { createProvider } from '../../../src/core/providers/create.js';
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

function provider() {
  return createProvider({
    provider: 'anthropic',
    apiKey: 'sk-ant-test-key-123456',
    baseURL: mock.anthropicBaseURL,
    sleep: recordingSleep().sleep,
  });
}

describe('anthropic provider through the real SDK', () => {
  it('streams text and ends with the assembled message and usage', async () => {
    mock.script({
      text: 'Hello from the mock, streamed in pieces.',
      usage: { input: 120, output: 9, cacheRead: 800, cacheWrite: 40 },
    });
    const result = await collect(provider()(request(), new AbortController().signal));

    expect(result.error).toBeUndefined();
    const deltas = result.events.filter((e) => e.type === 'text_delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((e) => (e.type === 'text_delta' ? e.text : '')).join('')).toBe('Hello from the mock, streamed in pieces.');
    expect(result.events.at(-1)?.type).toBe('message_end');
    expect(result.events.filter((e) => e.type === 'message_end')).toHaveLength(1);
    expect(result.end?.message).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello from the mock, streamed in pieces.' }],
    });
    expect(result.end?.stopReason).toBe('end_turn');
    expect(result.end?.usage).toEqual({ input: 120, output: 9, cacheRead: 800, cacheWrite: 40 });
  });

  it('streams thinking with its signature, then text', async () => {
    mock.script({ thinking: 'Let me think about this carefully.', signature: 'sig-abc', text: 'Done.' });
    const result = await collect(provider()(request(), new AbortController().signal));

    const thinking = result.events.flatMap((e) => (e.type === 'thinking_delta' ? [e.text] : [])).join('');
    expect(thinking).toBe('Let me think about this carefully.');
    expect(result.end?.message.content).toEqual([
      { type: 'thinking', thinking: 'Let me think about this carefully.', signature: 'sig-abc' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  it('assembles several tool calls whose arguments arrive in fragments', async () => {
    mock.script({
      text: 'Reading two files.',
      toolCalls: [
        { id: 'toolu_1', name: 'read_file', args: { path: 'src/a.ts' } },
        { id: 'toolu_2', name: 'grep', args: { pattern: 'TODO', nested: { deep: [1, 2, 3] } } },
      ],
    });
    const result = await collect(provider()(request(), new AbortController().signal));

    expect(result.end?.stopReason).toBe('tool_use');
    expect(result.end?.message.content).toEqual([
      { type: 'text', text: 'Reading two files.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/a.ts' } },
      { type: 'tool_use', id: 'toolu_2', name: 'grep', input: { pattern: 'TODO', nested: { deep: [1, 2, 3] } } },
    ]);
    const toolEvents = result.events.filter((e) => e.type.startsWith('tool_call'));
    expect(toolEvents[0]).toEqual({ type: 'tool_call_start', index: 0, id: 'toolu_1', name: 'read_file' });
    const secondDeltas = toolEvents.filter((e) => e.type === 'tool_call_delta' && e.index === 1);
    expect(secondDeltas.length).toBe(3);
    expect(secondDeltas.map((e) => (e.type === 'tool_call_delta' ? e.argsDelta : '')).join('')).toBe(
      JSON.stringify({ pattern: 'TODO', nested: { deep: [1, 2, 3] } }),
    );
    expect(toolEvents.filter((e) => e.type === 'tool_call_end').map((e) => (e.type === 'tool_call_end' ? e.index : -1))).toEqual([
      0, 1,
    ]);
  });

  it('keeps unparseable tool arguments under INVALID_JSON_KEY', async () => {
    mock.script({ toolCalls: [{ id: 'toolu_bad', name: 'read_file', args: '{"path": "a.ts",' }] });
    const result = await collect(provider()(request(), new AbortController().signal));
    expect(result.end?.message.content).toEqual([
      { type: 'tool_use', id: 'toolu_bad', name: 'read_file', input: { [INVALID_JSON_KEY]: '{"path": "a.ts",' } },
    ]);
  });

  it('sends the conversation in Anthropic shape with cache breakpoints on system, last tool and last block', async () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Read a.ts' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig-1' },
          { type: 'thinking', thinking: 'unsigned, from another provider' },
          { type: 'text', text: 'Sure.' },
          { type: 'tool_use', id: 'toolu_9', name: 'read_file', input: { path: 'a.ts' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_9', content: 'export {}', isError: true }] },
    ];
    mock.script({ text: 'ok' });
    await collect(provider()(request({ messages: history, maxTokens: 2048 }), new AbortController().signal));

    expect(mock.requests).toHaveLength(1);
    const sent = mock.requests[0]!;
    expect(sent.format).toBe('anthropic');
    // This SDK version sends the key as a bearer token; older ones used x-api-key.
    expect(String(sent.headers['x-api-key'] ?? sent.headers.authorization)).toContain('sk-ant-test-key-123456');
    expect(sent.body.stream).toBe(true);
    expect(sent.body.max_tokens).toBe(2048);
    expect(sent.body.model).toBe('test-model');
    expect(sent.body.system).toEqual([{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }]);
    expect(sent.body.tools.map((t: { name: string }) => t.name)).toEqual(['read_file', 'grep']);
    expect(sent.body.tools[0].cache_control).toBeUndefined();
    expect(sent.body.tools[1].cache_control).toEqual({ type: 'ephemeral' });
    expect(sent.body.tools[0].input_schema).toEqual(request().tools[0]!.inputSchema);
    expect(sent.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Read a.ts' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig-1' },
          { type: 'text', text: 'Sure.' },
          { type: 'tool_use', id: 'toolu_9', name: 'read_file', input: { path: 'a.ts' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_9',
            content: 'export {}',
            is_error: true,
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    ]);
  });

  it('one provider, a growing history: each request has its one message breakpoint, on its last message, and the earlier messages as sent before', async () => {
    const stream = provider();
    const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'first' }] }];
    for (let step = 0; step < 3; step += 1) {
      mock.script({ text: `answer ${step}` });
      await collect(stream(request({ messages: [...history] }), new AbortController().signal));
      history.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${step}` }] });
      history.push({ role: 'user', content: [{ type: 'text', text: `next ${step}` }] });
    }
    const breakpoints = (messages: { content: { cache_control?: unknown }[] }[]) =>
      messages.flatMap((m, i) => m.content.filter((b) => b.cache_control).map(() => i));
    for (const [i, sent] of mock.requests.entries()) {
      const messages = sent.body.messages as { content: { cache_control?: unknown }[] }[];
      expect(breakpoints(messages)).toEqual([messages.length - 1]);
      // A request is the previous one plus the new messages, the breakpoint aside.
      if (i > 0) {
        const strip = (value: unknown) => JSON.parse(JSON.stringify(value), (k, v) => (k === 'cache_control' ? undefined : v));
        const before = strip(mock.requests[i - 1]!.body.messages);
        expect(strip(messages).slice(0, before.length)).toEqual(before);
      }
    }
    expect(mock.requests).toHaveLength(3);
  });

  it('sends the body as the SDK would have serialized it, byte for byte, breakpoints included', async () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'quotes " and \\ and ünïcödé 🎉 "messages":[]' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'grep', input: { pattern: '"messages":[]' } }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_1', content: 'found', isError: true }] },
    ];
    mock.script({ text: 'ok' });
    await collect(provider()(request({ messages: history }), new AbortController().signal));
    expect(mock.requests[0]!.raw).toBe(JSON.stringify(toAnthropicParams(request({ messages: history }))));
  });

  it('the body is JSON.stringify of the parameters as the history grows; each earlier message is serialized once', () => {
    const caches = bodyCaches();
    // One tool list throughout, as a session has: the head kept for it must follow every other change.
    const tools = request().tools;
    const history: Message[] = [];
    const turns: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'start' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hm', signature: 'sig' },
          { type: 'tool_use', id: 'a', name: 'read_file', input: { path: 'x' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'a', content: 'A' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'only thinking' }] },
      { role: 'user', content: [] },
    ];
    for (const message of turns) {
      history.push(message);
      for (const model of ['claude-test', 'm","messages":[],"x":"']) {
        for (const system of ['', 'You are a test.']) {
          for (const maxTokens of [1024, 2048]) {
            const req = request({ model, system, maxTokens, tools, messages: [...history] });
            expect(anthropicRequestBody(req, caches)).toBe(JSON.stringify(toAnthropicParams(req)));
          }
        }
      }
    }
    // Every message but the last is kept as JSON; the last (it carries the breakpoint) never is.
    for (const message of turns.slice(0, -1)) expect(caches.json.has(message)).toBe(true);
    expect(caches.json.has(turns.at(-1)!)).toBe(false);
    expect(anthropicRequestBody(request({ messages: [] }), caches)).toBe(
      JSON.stringify(toAnthropicParams(request({ messages: [] }))),
    );
  });

  it('omits an empty system prompt and an empty tool list', async () => {
    mock.script({ text: 'ok' });
    await collect(provider()(request({ system: '', tools: [] }), new AbortController().signal));
    const body = mock.requests[0]!.body;
    expect(body.system).toBeUndefined();
    expect(body.tools).toBeUndefined();
    expect(body.messages[0].content[0].cache_control).toEqual({ type: 'ephemeral' });
  });

  it('maps max_tokens stop reason', async () => {
    mock.script({ text: 'cut short', stopReason: 'max_tokens' });
    const result = await collect(provider()(request(), new AbortController().signal));
    expect(result.end?.stopReason).toBe('max_tokens');
  });
});
