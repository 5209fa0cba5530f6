/**
 * Malformed model output, sent by the mock on the wire and read by the real SDKs: whatever
 * arrives, the provider hands the loop a valid message (and consistent events).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/core/providers/create.js';
import {
  INVALID_JSON_KEY,
  INVALID_TOOL_NAME,
  type Message,
  type ProviderName,
  type StreamEvent,
  toolUses,
} from '../../../src/core/providers/types.js';
import { startMockProvider, type MockProvider, type Reply } from '../../support/mock-provider.js';
import { collect, recordingSleep, request } from '../../support/stream-helpers.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const VALID_ID = /^[a-zA-Z0-9_-]{1,40}$/;

function provider(name: ProviderName) {
  const baseURL = name === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL;
  return createProvider({ provider: name, apiKey: 'sk-valid-output-test', baseURL, sleep: recordingSleep().sleep });
}

async function reply(name: ProviderName, scripted: Reply, messages?: Message[]) {
  mock.script(scripted);
  const result = await collect(provider(name)(request(messages ? { messages } : {}), new AbortController().signal));
  expect(result.error).toBeUndefined();
  return result;
}

const toolStarts = (events: StreamEvent[]) =>
  events.flatMap((e) => (e.type === 'tool_call_start' ? [{ id: e.id, name: e.name }] : []));

describe('anthropic output from the wire', () => {
  it('a text block without `text`, then a delta: the text is the delta, not "undefinedhello"', async () => {
    const result = await reply('anthropic', {
      rawBlocks: [{ start: { type: 'text' }, deltas: [{ type: 'text_delta', text: 'hello' }] }],
    });
    expect(result.events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : []))).toEqual(['hello']);
    expect(result.end?.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'hello' }] });
  });

  it('empty blocks are dropped: a text block without text, a thinking block without thinking', async () => {
    const result = await reply('anthropic', {
      text: 'the answer',
      rawBlocks: [{ start: { type: 'text' } }, { start: { type: 'thinking' } }, { start: { type: 'text', text: '' } }],
    });
    expect(result.end?.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'the answer' }] });
  });

  it('a delta whose text is missing adds nothing', async () => {
    const result = await reply('anthropic', {
      rawBlocks: [{ start: { type: 'text', text: 'a' }, deltas: [{ type: 'text_delta' }, { type: 'text_delta', text: 'b' }] }],
    });
    expect(result.events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : []))).toEqual(['a', 'b']);
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'ab' }]);
  });

  it('a tool_use without a name becomes a call the loop can answer with an error', async () => {
    const result = await reply('anthropic', {
      stopReason: 'tool_use',
      rawBlocks: [
        {
          start: { type: 'tool_use', id: 'toolu_noname', input: {} },
          deltas: [{ type: 'input_json_delta', partial_json: '{"a":1}' }],
        },
      ],
    });
    expect(result.end?.message.content).toEqual([
      { type: 'tool_use', id: 'toolu_noname', name: INVALID_TOOL_NAME, input: { a: 1 } },
    ]);
    expect(toolStarts(result.events)).toEqual([{ id: 'toolu_noname', name: INVALID_TOOL_NAME }]);
  });

  it('a call without an id, or with spaces and slashes in it, gets a fresh valid id', async () => {
    const result = await reply('anthropic', {
      stopReason: 'tool_use',
      rawBlocks: [
        {
          start: { type: 'tool_use', name: 'read_file', input: {} },
          deltas: [{ type: 'input_json_delta', partial_json: '{"path":"a"}' }],
        },
        { start: { type: 'tool_use', id: 'toolu bad/../id', name: 'read_file', input: {} } },
      ],
    });
    const calls = toolUses(result.end!.message);
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call.id).toMatch(VALID_ID);
    expect(calls[0]!.id).not.toBe(calls[1]!.id);
    expect(calls[0]!.input).toEqual({ path: 'a' });
    // The events name the same ids as the message.
    expect(toolStarts(result.events).map((s) => s.id)).toEqual(calls.map((c) => c.id));
  });

  it('two calls with the same id: the second gets a fresh one', async () => {
    const result = await reply('anthropic', {
      toolCalls: [
        { id: 'toolu_dup', name: 'read_file', args: { path: 'a' } },
        { id: 'toolu_dup', name: 'read_file', args: { path: 'b' } },
      ],
    });
    const calls = toolUses(result.end!.message);
    expect(calls.map((c) => c.id)[0]).toBe('toolu_dup');
    expect(calls[1]!.id).toMatch(VALID_ID);
    expect(calls[1]!.id).not.toBe('toolu_dup');
    expect(calls.map((c) => c.input)).toEqual([{ path: 'a' }, { path: 'b' }]);
  });

  it('an id already used earlier in the history is replaced too', async () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'read a' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_seen', name: 'read_file', input: { path: 'a' } }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_seen', content: 'A' }] },
    ];
    const result = await reply(
      'anthropic',
      { toolCalls: [{ id: 'toolu_seen', name: 'read_file', args: { path: 'b' } }] },
      history,
    );
    const [call] = toolUses(result.end!.message);
    expect(call!.id).not.toBe('toolu_seen');
    expect(call!.id).toMatch(VALID_ID);
  });

  it('arguments that are JSON but not an object are kept for the model as invalid', async () => {
    const result = await reply('anthropic', { toolCalls: [{ id: 'toolu_arr', name: 'read_file', args: '[1,2]' }] });
    expect(toolUses(result.end!.message)[0]!.input).toEqual({ [INVALID_JSON_KEY]: '[1,2]' });
  });
});

describe('openai output from the wire', () => {
  it('calls without ids get fresh ids, unique across messages (not call_0 every time)', async () => {
    const noIds: Reply = {
      stopReason: 'tool_calls',
      rawDeltas: [
        { tool_calls: [{ index: 0, type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] },
        { tool_calls: [{ index: 1, type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } }] },
      ],
    };
    const first = toolUses((await reply('openai', noIds)).end!.message);
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: first },
      { role: 'user', content: first.map((c) => ({ type: 'tool_result' as const, toolUseId: c.id, content: 'x' })) },
    ];
    const second = toolUses((await reply('openai', noIds, history)).end!.message);
    const ids = [...first, ...second].map((c) => c.id);
    for (const id of ids) expect(id).toMatch(VALID_ID);
    expect(new Set(ids).size).toBe(4);
  });

  it('a call without a name, a duplicate id and an id with spaces', async () => {
    const result = await reply('openai', {
      stopReason: 'tool_calls',
      rawDeltas: [
        { tool_calls: [{ index: 0, id: 'call_dup', type: 'function', function: { arguments: '{}' } }] },
        {
          tool_calls: [{ index: 1, id: 'call_dup', type: 'function', function: { name: 'grep', arguments: '{"pattern":"x"}' } }],
        },
        {
          tool_calls: [
            { index: 2, id: 'call with spaces/and/slashes', type: 'function', function: { name: 'grep', arguments: '{}' } },
          ],
        },
      ],
    });
    const calls = toolUses(result.end!.message);
    expect(calls.map((c) => c.name)).toEqual([INVALID_TOOL_NAME, 'grep', 'grep']);
    // One of the two keeps its id (the first to start: here the named one, as the other's name never came).
    expect(calls.filter((c) => c.id === 'call_dup')).toHaveLength(1);
    for (const call of calls) expect(call.id).toMatch(VALID_ID);
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    // Events in the order the calls started; the same ids and names as the message.
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(toolStarts(result.events).sort(byId)).toEqual(calls.map((c) => ({ id: c.id, name: c.name })).sort(byId));
  });
});
