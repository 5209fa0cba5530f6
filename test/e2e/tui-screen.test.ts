import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { type Pane, isChild, lastUserText, useTui } from '../support/tmux.js';

/** The terminal itself: resizes, short screens, keys typed before the app is ready. */
const tui = useTui();

/** The parent starts `count` sub-agents that run until stopped, and says so. */
function hangingJobs(count: number) {
  return (request: RecordedRequest): Reply => {
    if (isChild(request)) return { fault: { kind: 'hang' } };
    if (lastUserText(request).includes('tool_result')) return { text: `${count} started.` };
    return {
      toolCalls: Array.from({ length: count }, (_, i) => ({ name: 'agent_start', args: { task: `task number ${i + 1}` } })),
    };
  };
}

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, `${pattern.flags}g`))?.length ?? 0;

/** Waits until the screen has been still for a moment (the app redraws after a resize). */
async function stable(pane: Pane): Promise<string> {
  let last = '';
  for (let i = 0; i < 50; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    const now = pane.capture({ history: true });
    if (now === last) return now;
    last = now;
  }
  return last;
}

describe('the terminal', () => {
  it('leaves no stale copies of the live area when the terminal narrows or widens while rows are live', async () => {
    const pane = await tui.start();
    tui.mock.respond(hangingJobs(2));
    pane.type('start two');
    await pane.screen(/sub-2 .*thinking/);
    for (const width of [60, 40, 100]) {
      pane.resize(width, 40);
      await pane.screen(new RegExp(`^╭─{${width - 2}}╮$`, 'm'));
      const all = await stable(pane);
      // Everything the terminal holds, scrollback included: one input box, one footer, one row each.
      expect(count(all, /╭─+╮/), all).toBe(1);
      expect(count(all, /^sub-1 /m), all).toBe(1);
      expect(count(all, /^sub-2 /m), all).toBe(1);
      expect(count(all, /Esc interrupt/), all).toBe(1);
      expect(count(all, /› start two/), all).toBe(1);
      expect(count(all, /2 started\./), all).toBe(1);
    }
  });
});
