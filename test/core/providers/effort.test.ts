import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicRequestBody, toAnthropicParams } from '../../../src/core/providers/anthropic.js';
import { createProvider } from '../../../src/core/providers/create.js';
import { anthropicThinking, definitionEffort, effortFor, openaiEffort, withEffort } from '../../../src/core/providers/effort.js';
import { toOpenAIParams } from '../../../src/core/providers/openai.js';
import { bodyCaches } from '../../../src/core/providers/request-body.js';
import type { Message, ModelRequest, StreamFn } from '../../../src/core/providers/types.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { collect, recordingSleep, request } from '../../support/stream-helpers.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const signal = () => new AbortController().signal;
const anthropic = () =>
  createProvider({
    provider: 'anthropic',
    apiKey: 'sk-ant-test-1234567',
    baseURL: mock.anthropicBaseURL,
    sleep: recordingSleep().sleep,
  });

describe('effort on Anthropic', () => {
  it('is extended thinking with a budget by level, max_tokens kept above it within the output cap', () => {
    expect(anthropicThinking('claude-sonnet-4-5', 'low', 8_192)).toEqual({
      thinking: { type: 'enabled', budget_tokens: 4_096 },
      max_tokens: 12_288,
    });
    expect(anthropicThinking('claude-sonnet-4-5', 'high', 1_024)).toEqual({
      thinking: { type: 'enabled', budget_tokens: 20_000 },
      max_tokens: 21_024,
    });
    // Opus 4.1 writes at most 32k: the budget gives way so the answer keeps its 8k.
    expect(anthropicThinking('claude-opus-4-1', 'max', 8_192)).toEqual({
      thinking: { type: 'enabled', budget_tokens: 23_808 },
      max_tokens: 32_000,
    });
    for (const effort of ['low', 'medium', 'high', 'max'] as const) {
      for (const maxTokens of [1, 1_024, 8_192, 64_000]) {
        const made = anthropicThinking('claude-haiku-4-5', effort, maxTokens)!;
        const budget = (made.thinking as { budget_tokens: number }).budget_tokens;
        expect(budget).toBeGreaterThanOrEqual(1_024);
        expect(made.max_tokens).toBeGreaterThan(budget);
        expect(made.max_tokens).toBeLessThanOrEqual(64_000);
      }
    }
  });

  it('is adaptive thinking and the effort parameter where the model takes it; nothing where it takes none', () => {
    expect(anthropicThinking('claude-opus-4-6', 'max', 8_192)).toEqual({
      thinking: { type: 'adaptive' },
      output_config: { effort: 'max' },
      max_tokens: 8_192,
    });
    expect(anthropicThinking('some-proxy-model', 'high', 8_192)).toBeUndefined();
    expect(anthropicThinking('claude-sonnet-4-5', undefined, 8_192)).toBeUndefined();
    const params = toAnthropicParams(request({ model: 'some-proxy-model', effort: 'high' }));
    expect(params).not.toHaveProperty('thinking');
    expect(params.max_tokens).toBe(1_024);
  });

  it('keeps the body JSON.stringify of the parameters with every effort, its head made again when the effort changes', () => {
    const caches = bodyCaches();
    const tools = request().tools;
    const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];
    for (const model of ['claude-sonnet-4-5', 'claude-opus-4-6', 'other']) {
      for (const effort of [undefined, 'low', 'max', undefined] as const) {
        const req = request({ model, tools, messages, ...(effort ? { effort } : {}) });
        expect(anthropicRequestBody(req, caches)).toBe(JSON.stringify(toAnthropicParams(req)));
      }
    }
  });

  it("sends the thinking budget, and the first reply's signed thinking back before its call on the next request", async () => {
    mock.script(
      {
        thinking: 'Plan: read a first.',
        signature: 'sig_opaque_42',
        toolCalls: [{ id: 'toolu_a1', name: 'read_file', args: { path: 'a' } }],
      },
      { text: 'done' },
    );
    const stream = anthropic();
    const req = request({ model: 'claude-sonnet-4-5', effort: 'high' });
    const first = await collect(stream(req, signal()));
    expect(mock.requests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 20_000 });
    expect(mock.requests[0]!.body.max_tokens).toBe(21_024);
    expect(first.end?.message.content[0]).toEqual({
      type: 'thinking',
      thinking: 'Plan: read a first.',
      signature: 'sig_opaque_42',
    });

    const history: Message[] = [
      ...req.messages,
      first.end!.message,
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_a1', content: 'A' }] },
    ];
    const second = await collect(stream(request({ model: 'claude-sonnet-4-5', effort: 'high', messages: history }), signal()));
    expect(second.error).toBeUndefined();
    expect(mock.requests[1]!.body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Plan: read a first.', signature: 'sig_opaque_42' },
        { type: 'tool_use', id: 'toolu_a1', name: 'read_file', input: { path: 'a' } },
      ],
    });
  });

  it('keeps redacted thinking and sends it back as it came', async () => {
    mock.script(
      {
        stopReason: 'tool_use',
        rawBlocks: [
          { start: { type: 'redacted_thinking', data: 'b3BhcXVlIHRoaW5raW5n' } },
          {
            start: { type: 'tool_use', id: 'toolu_r1', name: 'read_file', input: {} },
            deltas: [{ type: 'input_json_delta', partial_json: '{"path":"r"}' }],
          },
        ],
      },
      { text: 'ok' },
    );
    const stream = anthropic();
    const first = await collect(stream(request({ model: 'claude-opus-4-6', effort: 'low' }), signal()));
    expect(mock.requests[0]!.body.thinking).toEqual({ type: 'adaptive' });
    expect(mock.requests[0]!.body.output_config).toEqual({ effort: 'low' });
    expect(first.end?.message.content[0]).toEqual({
      type: 'thinking',
      thinking: '',
      signature: 'b3BhcXVlIHRoaW5raW5n',
      redacted: true,
    });

    const history: Message[] = [
      ...request().messages,
      first.end!.message,
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_r1', content: 'R' }] },
    ];
    await collect(stream(request({ model: 'claude-opus-4-6', effort: 'low', messages: history }), signal()));
    expect(mock.requests[1]!.body.messages[1].content[0]).toEqual({ type: 'redacted_thinking', data: 'b3BhcXVlIHRoaW5raW5n' });
  });

  it("never sends OpenAI's reasoning items to Anthropic (a session resumed on the other provider)", () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'summary', signature: 'enc_openai', itemId: 'rs_1' },
          { type: 'text', text: 'a' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'q2' }] },
    ];
    expect(toAnthropicParams(request({ messages })).messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'a' }],
    });
  });
});

describe('effort on OpenAI Chat, and where it comes from', () => {
  it('is reasoning_effort for a reasoning model on Chat, and nothing for one that takes none', () => {
    expect(toOpenAIParams(request({ model: 'o3', effort: 'max' })).reasoning_effort).toBe('high');
    expect(toOpenAIParams(request({ model: 'gpt-5.1-codex-max', effort: 'max' })).reasoning_effort).toBe('xhigh');
    expect(toOpenAIParams(request({ model: 'qwen3-coder', effort: 'high' }))).not.toHaveProperty('reasoning_effort');
    expect(openaiEffort('gpt-5', undefined)).toBeUndefined();
  });

  it("withEffort sets the effort on every request, a job's over what the request had", async () => {
    const seen: ModelRequest[] = [];
    const inner: StreamFn = (req) => {
      seen.push(req);
      return (async function* () {})();
    };
    expect(withEffort(inner, undefined)).toBe(inner);
    for await (const _ of withEffort(inner, 'low')(request({ effort: 'high' }), signal()));
    for await (const _ of withEffort(inner, 'max')(request(), signal()));
    expect(seen.map((r) => r.effort)).toEqual(['low', 'max']);
  });

  it("takes a definition's effort over the session's, a repository's only to lower it", () => {
    expect(definitionEffort('high', 'low', {})).toBe('high');
    expect(definitionEffort(undefined, 'medium', {})).toBe('medium');
    expect(definitionEffort('low', 'high', { fromRepository: true })).toBe('low');
    expect(definitionEffort('max', 'medium', { fromRepository: true })).toBe('medium');
    expect(definitionEffort('max', undefined, { fromRepository: true })).toBeUndefined();
  });

  it('sends an effort only to a model that takes one on its provider, and says so once otherwise', () => {
    expect(effortFor('anthropic', 'claude-sonnet-4-5', 'high')).toEqual({ effort: 'high' });
    expect(effortFor('openai', 'gpt-5', 'low')).toEqual({ effort: 'low' });
    expect(effortFor('openai', 'gpt-4.1', 'high')).toEqual({
      notice: expect.stringMatching(/^effort high: gpt-4\.1 takes no reasoning effort/),
    });
    expect(effortFor('anthropic', 'gpt-5', 'high').effort).toBeUndefined();
    expect(effortFor('openai', 'gpt-4.1', undefined)).toEqual({});
  });
});
