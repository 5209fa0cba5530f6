import { describe, expect, it } from 'vitest';
import type { Reply } from '../support/mock-provider.js';
import { isChild, lastUserText, useTui } from '../support/tmux.js';

/** The words the TUI uses: one per state, said once, and only when true. */
const tui = useTui();

describe('the TUI words things once and truly', () => {
  it('says interrupted without claiming sub-agents run when none do', async () => {
    const pane = await tui.start();
    tui.mock.script({ text: 'A long reply that streams one slow piece at a time.', fault: { kind: 'stall', afterChunks: 4 } });
    pane.type('talk slowly');
    await pane.screen(/A long/);
    pane.key('Escape');
    const text = await pane.screen(/■ interrupted/);
    expect(text).toMatch(/^■ interrupted$/m);
    expect(text).not.toContain('keep running');
  });

  it('shows a queued row once, and a stopped job as stopped in the rows, the footer and /agents', async () => {
    const pane = await tui.start({ args: ['--max-agents', '1'] });
    tui.mock.respond((request): Reply => {
      if (isChild(request)) return { fault: { kind: 'hang' } };
      if (lastUserText(request).includes('tool_result')) return { text: 'Two started.' };
      return {
        toolCalls: [
          { name: 'agent_start', args: { task: 'the first task' } },
          { name: 'agent_start', args: { task: 'the second task' } },
        ],
      };
    });
    pane.type('start two, one at a time');
    const rows = await pane.screen(/^sub-2 {2}queued · \d+s$/m);
    expect(rows).not.toMatch(/queued {2}queued/);
    expect(rows).toMatch(/^sub-1 {2}thinking… · \d+s · 0 tools · 0 tok/m);
    pane.type('/agents stop sub-2');
    await pane.screen(/· stopped sub-2/);
    const footer = await pane.screen(/subagents: 1 running \(oldest \d+s\), 1 stopped/);
    expect(footer).not.toContain('aborted');
    pane.type('/agents');
    const list = await pane.screen(/Sub-agents \(2\)/);
    expect(list).toMatch(/sub-2\s+stopped\s+explore/);
    expect(list).not.toContain('aborted');
  });
});
