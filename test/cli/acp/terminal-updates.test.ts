import { describe, expect, it } from 'vitest';
import { SessionUpdates } from '../../../src/cli/acp/session-updates.js';

const start = { type: 'tool_start', id: 'c1', name: 'bash', label: 'sleep 5', args: { command: 'sleep 5' } } as const;
const terminal = { type: 'terminal', terminalId: 'term-1' } as const;

describe('SessionUpdates: a call in the editor’s terminal', () => {
  it('embeds the terminal while the call runs and keeps it at its end, failed or not', () => {
    const updates = new SessionUpdates('/p');
    updates.fromLoop(start);
    expect(updates.terminal('c1', 'term-1')).toEqual([
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress', content: [terminal] },
    ]);
    const [end] = updates.fromLoop({ type: 'tool_end', id: 'c1', name: 'bash', content: 'timed out after 5s', isError: true });
    expect(end).toMatchObject({ status: 'failed', content: [terminal, { type: 'content', content: { type: 'text' } }] });
  });

  it('a terminal shown before the call’s start reached the mapper goes in the tool_call itself', () => {
    const updates = new SessionUpdates('/p');
    expect(updates.terminal('c1', 'term-1')).toEqual([]);
    const [call] = updates.fromLoop(start);
    expect(call).toMatchObject({ sessionUpdate: 'tool_call', toolCallId: 'c1', content: [terminal] });
    const [end] = updates.fromLoop({ type: 'tool_end', id: 'c1', name: 'bash', content: 'ok', isError: false });
    expect(end).toMatchObject({ status: 'completed', content: [terminal, { type: 'content' }] });
  });
});
