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
});
