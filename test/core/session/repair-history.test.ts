import { describe, expect, it } from 'vitest';
import { toAnthropicParams } from '../../../src/core/providers/anthropic.js';
import { VALID_TOOL_ID } from '../../../src/core/providers/normalize.js';
import { toOpenAIParams } from '../../../src/core/providers/openai.js';
import { INVALID_TOOL_NAME, type Message, type ModelRequest } from '../../../src/core/providers/types.js';
import { type JoinedRuns, alternateRoles } from '../../../src/core/providers/alternate-roles.js';
import { LOST_RESULT, OPENING_LOST, repairHistory } from '../../../src/core/session/repair-history.js';
import { turnOrderError } from '../../support/mock-wire.js';

const call = (id: string) => ({ type: 'tool_use' as const, id, name: 'bash', input: { command: 'make' } });
const result = (id: string, content = 'ok') => ({ type: 'tool_result' as const, toolUseId: id, content });
const lost = (id: string) => ({ type: 'tool_result' as const, toolUseId: id, content: LOST_RESULT, isError: true });
const text = (t: string) => ({ type: 'text' as const, text: t });
const user = (...content: unknown[]) => ({ role: 'user', content });
const assistant = (...content: unknown[]) => ({ role: 'assistant', content });

describe('repairHistory', () => {
  it('answers calls a crash left without results, at the end and in the middle', () => {
    const history: Message[] = [
      { role: 'user', content: [text('build it')] },
      { role: 'assistant', content: [call('a'), call('b')] },
      { role: 'user', content: [result('a'), text('next')] },
      { role: 'assistant', content: [text('running'), call('c')] },
    ];
    const repaired = repairHistory(history);
    expect(repaired.history[2]).toEqual({ role: 'user', content: [result('a'), lost('b'), text('next')] });
    expect(repaired.history[4]).toEqual({ role: 'user', content: [lost('c')] });
    expect(repaired.history).toHaveLength(5);
    expect(repaired.warnings).toEqual(['the session ended while 2 tool call(s) ran; they are marked interrupted']);
  });

  it('leaves a valid history untouched, and a repaired one needs no second repair', () => {
    const history: Message[] = [
      { role: 'user', content: [text('x')] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 'sig' }, call('a'), call('b')] },
      { role: 'user', content: [result('a'), { ...result('b', 'failed'), isError: true }] },
      { role: 'assistant', content: [text('done')] },
      { role: 'user', content: [text('notice')], noticeFor: ['sub-1'] },
    ];
    expect(repairHistory(history)).toEqual({ history, warnings: [] });
    const broken = [user(text('x')), assistant(call('a b'), call('a b')), user(result('a b'), null)];
    const once = repairHistory(broken).history;
    expect(repairHistory(once)).toEqual({ history: once, warnings: [] });
  });

  it('drops a tool result whose call is gone (a transcript edit), and a message left empty', () => {
    const { history, warnings } = repairHistory([
      user(text('first')),
      assistant(text('no calls here')),
      user(result('toolu_gone', 'orphan')),
      user(result('toolu_gone2'), text('kept text')),
    ]);
    expect(history).toEqual([
      { role: 'user', content: [text('first')] },
      { role: 'assistant', content: [text('no calls here')] },
      { role: 'user', content: [text('kept text')] },
    ]);
    expect(warnings).toEqual([
      'the transcript was repaired before resuming: 2 tool result(s) without their call dropped, 1 message(s) left empty dropped',
    ]);
  });

  it('a result two messages after its call answers nothing: the call is marked interrupted', () => {
    const { history } = repairHistory([user(text('go')), assistant(call('a')), user(text('meanwhile')), user(result('a'))]);
    expect(history).toEqual([
      { role: 'user', content: [text('go')] },
      { role: 'assistant', content: [call('a')] },
      { role: 'user', content: [lost('a'), text('meanwhile')] },
    ]);
  });

  it('content: [null], non-array content and unknown roles', () => {
    const { history, warnings } = repairHistory([
      user(null, text('real text')),
      { role: 'assistant', content: [null] },
      { role: 'user', content: 'plain string content' },
      { role: 'assistant', content: { type: 'text', text: 'an object' } },
      { role: 'system', content: [text('injected')] },
      { content: [text('no role')] },
      null,
      assistant(text('answer')),
    ]);
    expect(history).toEqual([
      { role: 'user', content: [text('real text')] },
      { role: 'user', content: [text('plain string content')] },
      { role: 'assistant', content: [text('answer')] },
    ]);
    expect(warnings).toEqual([
      'the transcript was repaired before resuming: 2 unreadable message(s) dropped, 1 message(s) with the unknown role "system" dropped, 1 message(s) with no role dropped, 1 message(s) whose content was a string, not a list of blocks, read as text, 2 invalid, empty or misplaced block(s) dropped, 1 message(s) left empty dropped',
    ]);
  });

  it('a text block without text and a thinking block without thinking are dropped; a call without a name is renamed', () => {
    const { history } = repairHistory([
      user(text('go')),
      assistant({ type: 'text' }, { type: 'thinking' }, { type: 'tool_use', id: 'toolu_1', input: { a: 1 } }),
      user(result('toolu_1', 'error: no such tool')),
    ]);
    expect(history[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: INVALID_TOOL_NAME, input: { a: 1 } }],
    });
    expect(history[2]).toEqual({ role: 'user', content: [result('toolu_1', 'error: no such tool')] });
  });

  it('missing and invalid ids get fresh valid ones, and their results follow', () => {
    const { history, warnings } = repairHistory([
      user(text('go')),
      assistant({ type: 'tool_use', name: 'read_file', input: {} }, call('toolu bad/../id')),
      user({ type: 'tool_result', content: 'for the call without id' }, result('toolu bad/../id', 'for the bad id')),
    ]);
    const [noId, badId] = (history[1]!.content as { id: string }[]).map((b) => b.id);
    expect(noId).toMatch(VALID_TOOL_ID);
    expect(badId).toMatch(VALID_TOOL_ID);
    expect(noId).not.toBe(badId);
    expect(history[2]).toEqual({
      role: 'user',
      content: [result(noId!, 'for the call without id'), result(badId!, 'for the bad id')],
    });
    expect(warnings).toEqual([
      'the transcript was repaired before resuming: 2 missing, invalid or repeated tool call id(s) replaced',
    ]);
  });

  it('two calls with one id (toolu_dup) keep their own results, by position, under unique ids', () => {
    const { history } = repairHistory([
      user(text('go')),
      assistant(call('toolu_dup'), call('toolu_dup')),
      user(result('toolu_dup', 'first'), result('toolu_dup', 'second')),
      assistant(call('toolu_dup')),
      user(result('toolu_dup', 'third')),
    ]);
    const ids = history.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
    expect(ids[0]).toBe('toolu_dup');
    expect(new Set(ids).size).toBe(3);
    expect(history[2]).toEqual({ role: 'user', content: [result(ids[0]!, 'first'), result(ids[1]!, 'second')] });
    expect(history[4]).toEqual({ role: 'user', content: [result(ids[2]!, 'third')] });
  });

  it('results go first, in call order; a second result for one call is dropped', () => {
    const { history } = repairHistory([
      user(text('go')),
      assistant(call('a'), call('b')),
      user(text('note'), result('b', 'B'), result('a', 'A'), result('a', 'again')),
    ]);
    expect(history[2]).toEqual({ role: 'user', content: [result('a', 'A'), result('b', 'B'), text('note')] });
  });

  it('tool result content in the wire shape is read as text', () => {
    const { history } = repairHistory([
      user(text('go')),
      assistant(call('a')),
      user({ type: 'tool_result', tool_use_id: 'a', content: [text('line 1'), text('line 2')] }),
    ]);
    expect(history[2]).toEqual({ role: 'user', content: [result('a', 'line 1\nline 2')] });
  });

  it('a history that starts with the model gets a user message before it', () => {
    const { history, warnings } = repairHistory([{ role: 'user', content: 42 }, assistant(text('hello'))]);
    expect(history).toEqual([
      { role: 'user', content: [text(OPENING_LOST)] },
      { role: 'assistant', content: [text('hello')] },
    ]);
    expect(warnings).toEqual([
      'the transcript was repaired before resuming: 1 unreadable message(s) dropped, a user message put before the first answer, which had none',
    ]);
  });
});

describe('alternateRoles: what a request sends', () => {
  const prompt: Message = { role: 'user', content: [text('next')] };
  const request = (messages: Message[]): ModelRequest => ({ model: 'm', system: 's', messages, tools: [], maxTokens: 10 });
  /** Why the strictest Anthropic and OpenAI servers would refuse these messages; empty when both take them. */
  const refusals = (messages: Message[]) =>
    [
      turnOrderError('anthropic', toAnthropicParams(request(messages))),
      turnOrderError('openai', toOpenAIParams(request(messages))),
    ].filter((why) => why !== undefined);
  const userWords = (messages: readonly unknown[]) =>
    messages.flatMap((m) => {
      const { role, content } = m as { role: unknown; content: unknown };
      if (role !== 'user' || !Array.isArray(content)) return [];
      return content.flatMap((b: { type?: unknown; text?: unknown }) =>
        b?.type === 'text' && typeof b.text === 'string' ? [b.text] : [],
      );
    });

  // A transcript as a crash, an error or a hand edit left it; then `--continue -p next`.
  const cases: [string, unknown[], Message[]][] = [
    ['killed before the answer', [user(text('first'))], [{ role: 'user', content: [text('first'), text('next')] }]],
    [
      'killed while a tool ran',
      [user(text('first')), assistant(call('a'))],
      [
        { role: 'user', content: [text('first')] },
        { role: 'assistant', content: [call('a')] },
        { role: 'user', content: [lost('a'), text('next')] },
      ],
    ],
    [
      'killed after the results, before the answer',
      [user(text('first')), assistant(call('a')), user(result('a'))],
      [
        { role: 'user', content: [text('first')] },
        { role: 'assistant', content: [call('a')] },
        { role: 'user', content: [result('a'), text('next')] },
      ],
    ],
    [
      'a notice before a prompt, neither answered',
      [user(text('go')), assistant(text('done')), { ...user(text('job 1 finished')), noticeFor: ['1'] }, user(text('and?'))],
      [
        { role: 'user', content: [text('go')] },
        { role: 'assistant', content: [text('done')] },
        { role: 'user', content: [text('job 1 finished'), text('and?'), text('next')] },
      ],
    ],
    [
      'a result whose call is gone, between two prompts',
      [user(text('first')), assistant(text('ok')), user(result('gone')), user(text('second'))],
      [
        { role: 'user', content: [text('first')] },
        { role: 'assistant', content: [text('ok')] },
        { role: 'user', content: [text('second'), text('next')] },
      ],
    ],
    [
      'a summary before the turn it kept',
      [user(text('[Summary of the earlier conversation]\nwork')), user(text('fix it')), assistant(text('fixed'))],
      [
        { role: 'user', content: [text('[Summary of the earlier conversation]\nwork'), text('fix it')] },
        { role: 'assistant', content: [text('fixed')] },
        prompt,
      ],
    ],
    [
      'two answers in a row (a hand edit)',
      [user(text('first')), assistant(text('one')), assistant(call('a')), user(result('a'))],
      [
        { role: 'user', content: [text('first')] },
        { role: 'assistant', content: [text('one'), call('a')] },
        { role: 'user', content: [result('a'), text('next')] },
      ],
    ],
    [
      'no readable first prompt',
      [assistant(text('hello'))],
      [{ role: 'user', content: [text(OPENING_LOST)] }, { role: 'assistant', content: [text('hello')] }, prompt],
    ],
  ];

  it.each(cases)('%s: one message per turn, every word of the user kept', (_label, raw, expected) => {
    const history = [...repairHistory(raw).history, prompt];
    const sent = alternateRoles(history);
    expect(sent).toEqual(expected);
    expect(refusals(sent)).toEqual([]);
    const added = userWords(sent).filter((words) => words !== OPENING_LOST);
    expect(added.join('|')).toBe([...userWords(raw), 'next'].join('|'));
  });

  it('the strict checks refuse what the history holds before it is joined', () => {
    const history = [...repairHistory([user(text('first'))]).history, prompt];
    expect(refusals(history)).toEqual([
      'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
      'Conversation roles must alternate user/assistant/user/assistant/...',
    ]);
    const unanswered: Message[] = [
      { role: 'user', content: [text('go')] },
      { role: 'assistant', content: [call('a')] },
      { role: 'user', content: [text('next')] },
    ];
    expect(refusals(unanswered)).toEqual([
      expect.stringMatching(/^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: a\./),
      expect.stringMatching(/^An assistant message with 'tool_calls' must be followed by tool messages .*: a$/),
    ]);
    const orphan: Message[] = [
      { role: 'user', content: [text('go')] },
      { role: 'assistant', content: [text('no call')] },
      { role: 'user', content: [result('a')] },
    ];
    expect(refusals(orphan)).toEqual([
      expect.stringMatching(/^messages\.2\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: a\./),
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    ]);
    expect(refusals([{ role: 'assistant', content: [text('hi')] }])).toEqual([
      'messages: first message must use the "user" role',
      'Conversation roles must alternate user/assistant/user/assistant/...',
    ]);
  });

  it('passes an alternating history as the same objects, and a joined run as the same object each time', () => {
    const history: Message[] = [
      { role: 'user', content: [text('go')] },
      { role: 'assistant', content: [call('a')] },
      { role: 'user', content: [result('a')] },
      { role: 'user', content: [text('job 1 finished')], noticeFor: ['1'] },
    ];
    const before = structuredClone(history);
    // What one conversation's alternatingStream keeps across its requests.
    const joined: JoinedRuns = new WeakMap();
    const first = alternateRoles(history, joined);
    expect(first.slice(0, 2)).toEqual(history.slice(0, 2));
    first.slice(0, 2).forEach((message, i) => expect(message).toBe(history[i]));
    // Delivery marks are the history's, not the request's.
    expect(first[2]).toEqual({ role: 'user', content: [result('a'), text('job 1 finished')] });
    expect(alternateRoles(history, joined)[2]).toBe(first[2]);
    expect(alternateRoles(history, new WeakMap())[2]).not.toBe(first[2]);
    expect(history).toEqual(before);
    // The run grew (a prompt after a failed turn): joined again, with every piece.
    const grown = alternateRoles([...history, prompt], joined);
    expect(grown[2]).toEqual({ role: 'user', content: [result('a'), text('job 1 finished'), text('next')] });
  });

  it('puts tool results first in a joined user message', () => {
    const sent = alternateRoles([
      { role: 'user', content: [text('go')] },
      { role: 'assistant', content: [call('a')] },
      { role: 'user', content: [text('typed while it ran')] },
      { role: 'user', content: [result('a')] },
    ]);
    expect(sent[2]).toEqual({ role: 'user', content: [result('a'), text('typed while it ran')] });
  });
});
