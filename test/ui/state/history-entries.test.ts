import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/providers/types.js';
import { historyEntries } from '../../../src/ui/state/history-entries.js';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

describe('a resumed conversation as transcript entries', () => {
  it('shows prompts, answers and tool calls with their results, paths relative to the workspace', () => {
    const messages: Message[] = [
      user('read the file'),
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 't1', name: 'read_file', input: { path: '/w/a.txt' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', content: '1\thello\n2\tworld' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'It says **hello**.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Sub-agent sub-1 completed.' }], noticeFor: ['sub-1'] },
    ];
    expect(historyEntries(messages, { root: '/w' })).toEqual([
      { kind: 'user', text: 'read the file' },
      { kind: 'assistant', text: 'Reading.' },
      { kind: 'tool', name: 'read_file', action: 'read_file a.txt', isError: false, summary: '1\thello (+1 line)' },
      { kind: 'assistant', text: 'It says **hello**.' },
      { kind: 'injected', text: 'Sub-agent sub-1 completed.' },
    ]);
  });

  it('shows only the last messages, and says how many it left out', () => {
    const messages = Array.from({ length: 30 }, (_, i) => user(`prompt ${i}`));
    const entries = historyEntries(messages, { max: 5 });
    expect(entries[0]).toEqual({ kind: 'info', text: '25 earlier messages not shown' });
    expect(entries.slice(1).map((e) => (e.kind === 'user' ? e.text : ''))).toEqual([
      'prompt 25',
      'prompt 26',
      'prompt 27',
      'prompt 28',
      'prompt 29',
    ]);
    expect(historyEntries([])).toEqual([]);
  });

  it("draws sub-agents as they were live: one start line, their ends, the turn they woke; never the model's words", () => {
    const messages: Message[] = [
      user('delegate it'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'agent_start', input: { task: 'find the loader' } }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolUseId: 't1',
            content: 'Sub-agent sub-1 started (running). Call agent_poll with id sub-1 to retrieve its summary.',
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Started.' }] },
      {
        role: 'user',
        content: [{ type: 'text', text: 'Sub-agent sub-1 completed. Call agent_poll with id sub-1 for its summary.' }],
        noticeFor: ['sub-1'],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'It found it.' }] },
    ];
    const done = { ...job(1), state: 'done' as const, task: 'find the loader' };
    const entries = historyEntries(messages, { jobs: [done] });
    expect(entries.slice(1)).toEqual([
      {
        kind: 'tool',
        name: 'agent_start',
        action: 'agent_start "find the loader"',
        isError: false,
        single: true,
        summary: 'started sub-1 · explore · "find the loader"',
      },
      { kind: 'assistant', text: 'Started.' },
      { kind: 'jobs', ids: ['sub-1'], lines: ['sub-1 finished: find the loader'], idle: false },
      { kind: 'wake', ids: ['sub-1'] },
      { kind: 'assistant', text: 'It found it.' },
    ]);
    expect(JSON.stringify(entries)).not.toContain('agent_poll');
  });
});

function job(number: number) {
  return {
    id: `sub-${number}`,
    number,
    state: 'running' as const,
    definition: 'explore',
    mode: 'typed' as const,
    task: `task ${number}`,
    createdAt: 0,
    turns: 1,
    toolCalls: 0,
    contextTokens: 0,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
}
