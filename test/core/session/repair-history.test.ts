import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/providers/types.js';
import { LOST_RESULT, answerDanglingToolCalls } from '../../../src/core/session/repair-history.js';

const call = (id: string) => ({ type: 'tool_use' as const, id, name: 'bash', input: { command: 'make' } });
const result = (id: string) => ({ type: 'tool_result' as const, toolUseId: id, content: 'ok' });
const lost = (id: string) => ({ type: 'tool_result' as const, toolUseId: id, content: LOST_RESULT, isError: true });

describe('answerDanglingToolCalls', () => {
  it('answers calls a crash left without results, at the end and in the middle', () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'build it' }] },
      { role: 'assistant', content: [call('a'), call('b')] },
      { role: 'user', content: [result('a'), { type: 'text', text: 'next' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'running' }, call('c')] },
    ];
    const { history: repaired, repaired: count } = answerDanglingToolCalls(history);
    expect(count).toBe(2);
    expect(repaired[2]).toEqual({ role: 'user', content: [result('a'), lost('b'), { type: 'text', text: 'next' }] });
    expect(repaired[4]).toEqual({ role: 'user', content: [lost('c')] });
    expect(repaired).toHaveLength(5);
  });

  it('leaves a valid history untouched', () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'x' }] },
      { role: 'assistant', content: [call('a')] },
      { role: 'user', content: [result('a')] },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ];
    expect(answerDanglingToolCalls(history)).toEqual({ history, repaired: 0 });
  });
});
