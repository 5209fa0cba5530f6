import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicRequestBody, toAnthropicParams } from '../../../src/core/providers/anthropic.js';
import { createProvider } from '../../../src/core/providers/create.js';
import { bodyCaches } from '../../../src/core/providers/request-body.js';
import { openToolTurnStart } from '../../../src/core/providers/thinking-turn.js';
import type { Message } from '../../../src/core/providers/types.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { collect, recordingSleep, request } from '../../support/stream-helpers.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const call = (id: string, ...before: Message['content']): Message => ({
  role: 'assistant',
  content: [...before, { type: 'tool_use', id, name: 'read_file', input: { path: 'a' } }],
});
const result = (id: string, ...after: Message['content']): Message => ({
  role: 'user',
  content: [{ type: 'tool_result', toolUseId: id, content: 'A' }, ...after],
});
const signed: Message['content'][number] = { type: 'thinking', thinking: 'Plan.', signature: 'sig_1' };

/** A tool-use turn that began without thinking (a session that ran without an effort, resumed with one). */
const unthought: Message[] = [user('read a'), call('toolu_1'), result('toolu_1')];

describe('the mock provider, as the Messages API, on thinking across tool calls', () => {
  const post = (body: unknown) =>
    fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const messages = toAnthropicParams(request({ messages: unthought })).messages;

  it('refuses thinking enabled on a tool-use turn that began without a thinking block (400, the API message), and only that', async () => {
    const refused = await post({
      model: 'claude-sonnet-4-5',
      max_tokens: 5000,
      thinking: { type: 'enabled', budget_tokens: 4096 },
      messages,
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringMatching(
          /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
        ),
      },
    });

    mock.respond(() => ({ text: 'ok' }));
    const thought = toAnthropicParams(
      request({ messages: [user('read a'), call('toolu_1', signed), result('toolu_1')] }),
    ).messages;
    const fresh = toAnthropicParams(
      request({ messages: [...unthought, { role: 'assistant', content: [{ type: 'text', text: 'A.' }] }, user('next')] }),
    ).messages;
    const bodies = [
      { messages },
      { messages, thinking: { type: 'adaptive' } },
      { messages: thought, thinking: { type: 'enabled', budget_tokens: 4096 } },
      { messages: fresh, thinking: { type: 'enabled', budget_tokens: 4096 } },
    ];
    for (const body of bodies) expect((await post({ model: 'claude-sonnet-4-5', max_tokens: 5000, ...body })).status).toBe(200);
  });
});

describe('budget thinking on a tool-use turn that began without it', () => {
  const anthropic = () =>
    createProvider({
      provider: 'anthropic',
      apiKey: 'sk-ant-test-1234567',
      baseURL: mock.anthropicBaseURL,
      sleep: recordingSleep().sleep,
    });

  it('sends that call without thinking, and thinks again from the next turn the user starts', async () => {
    mock.script({ text: 'Hello.', thinking: 'Greet.' }, { text: 'A is read.' }, { text: 'next done', thinking: 'Now B.' });
    const stream = anthropic();
    // One tool list, as a session sends: the body's head is kept by it, and must follow thinking off and on.
    const { tools } = request();
    const ask = (messages: Message[]) =>
      collect(stream(request({ model: 'claude-sonnet-4-5', effort: 'high', tools, messages }), new AbortController().signal));

    expect((await ask([user('hi')])).error).toBeUndefined();
    expect(mock.requests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 20_000 });
    const resumed = await ask(unthought);
    expect(resumed.error).toBeUndefined();
    expect(mock.requests[1]!.body).not.toHaveProperty('thinking');
    expect(mock.requests[1]!.body.max_tokens).toBe(1024);

    const next = await ask([...unthought, resumed.end!.message, user('now b')]);
    expect(next.error).toBeUndefined();
    expect(mock.requests[2]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 20_000 });
    expect(mock.requests[2]!.body.max_tokens).toBe(21_024);

    // The body stays JSON.stringify of the parameters as thinking goes off and on.
    const caches = bodyCaches();
    for (const messages of [[user('q')], unthought, [...unthought, resumed.end!.message, user('n')], unthought]) {
      const req = request({ model: 'claude-sonnet-4-5', effort: 'medium', tools, messages });
      expect(anthropicRequestBody(req, caches)).toBe(JSON.stringify(toAnthropicParams(req)));
    }
  });

  it('judges the turn by its first message as sent: unsigned thinking and OpenAI reasoning are not sent, so they do not count', () => {
    const openaiReasoning: Message['content'][number] = { type: 'thinking', thinking: 's', signature: 'enc', itemId: 'rs_1' };
    const unsigned: Message['content'][number] = { type: 'thinking', thinking: 'local model thoughts' };
    for (const first of [openaiReasoning, unsigned]) {
      const params = toAnthropicParams(
        request({ model: 'claude-sonnet-4-5', effort: 'low', messages: [user('q'), call('toolu_1', first), result('toolu_1')] }),
      );
      expect(params).not.toHaveProperty('thinking');
    }
    const redacted: Message['content'][number] = { type: 'thinking', thinking: '', signature: 'opaque', redacted: true };
    const kept = toAnthropicParams(
      request({ model: 'claude-sonnet-4-5', effort: 'low', messages: [user('q'), call('toolu_1', redacted), result('toolu_1')] }),
    );
    expect(kept.thinking).toEqual({ type: 'enabled', budget_tokens: 4_096 });
  });

  it('finds the turn across several calls and a prompt joined after the results; leaves adaptive thinking alone', () => {
    const long: Message[] = [
      user('q'),
      call('toolu_1', signed),
      result('toolu_1'),
      call('toolu_2'),
      result('toolu_2', { type: 'text', text: 'also this' }),
    ];
    expect(openToolTurnStart(long)).toBe(long[1]);
    expect(
      openToolTurnStart([...unthought, { role: 'assistant', content: [{ type: 'text', text: 'A.' }] }, user('next')]),
    ).toBeUndefined();
    expect(openToolTurnStart([user('q')])).toBeUndefined();
    expect(toAnthropicParams(request({ model: 'claude-sonnet-4-5', effort: 'high', messages: long })).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 20_000,
    });
    expect(toAnthropicParams(request({ model: 'claude-opus-4-6', effort: 'high', messages: unthought }))).toMatchObject({
      thinking: { type: 'adaptive' },
      output_config: { effort: 'high' },
    });
  });
});
