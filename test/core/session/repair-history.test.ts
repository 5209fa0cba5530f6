import { describe, expect, it } from 'vitest';
import { VALID_TOOL_ID } from '../../../src/core/providers/normalize.js';
import { INVALID_TOOL_NAME, type Message } from '../../../src/core/providers/types.js';
import { LOST_RESULT, OPENING_LOST, repairHistory } from '../../../src/core/session/repair-history.js';

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
