import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { isChild, lastUserText, useTui } from '../support/tmux.js';

/** Sub-agent completions in the real terminal: the parent wakes by itself, or is told with the next prompt. */
const tui = useTui();

/** The parent starts one sub-agent and says so; the child answers after a second; a later parent turn answers `later`. */
function oneSubAgent(later: string) {
  const parent: RecordedRequest[] = [];
  const responder = (request: RecordedRequest): Reply => {
    if (isChild(request)) return { text: 'the loader is in src/config.ts', delayMs: 1000 };
    parent.push(request);
    if (lastUserText(request).includes('tool_result')) return { text: 'Started one.' };
    if (request.raw.includes('Sub-agent sub-1 completed')) return { text: later };
    return { toolCalls: [{ name: 'agent_start', args: { task: 'find the config loader' } }] };
  };
  return { parent, responder };
}

describe('sub-agent completions in the TUI', () => {
  it('wakes the idle parent by default when a sub-agent finishes, and says so', async () => {
    const pane = await tui.start();
    const { parent, responder } = oneSubAgent('Woke up and read sub-1.');
    tui.mock.respond(responder);
    pane.type('delegate one task');
    await pane.screen(/Started one\./);
    const text = await pane.screen(/Woke up and read sub-1\./);
    expect(text).toContain('◆ sub-1 finished: find the config loader');
    expect(text).toContain('◆ woke the parent for sub-1');
    expect(text.indexOf('◆ sub-1 finished')).toBeLessThan(text.indexOf('◆ woke the parent'));
    expect(text.indexOf('◆ woke the parent')).toBeLessThan(text.indexOf('Woke up and read sub-1.'));
    expect(text).not.toContain('the model hears of this with your next prompt');
    // The wake turn carried only the notice: no prompt was typed.
    expect(parent).toHaveLength(3);
    expect(lastUserText(parent[2]!)).toContain('Call agent_poll with id sub-1');

    pane.type('/agents');
    const list = await pane.screen(/Sub-agents \(1\)/);
    expect(list).toMatch(/sub-1\s+done\s+explore.*woke the parent/);
  });

  it('with wakeOnComplete false, waits for the next prompt and says so', async () => {
    const pane = await tui.start({ settings: { wakeOnComplete: false } });
    const { parent, responder } = oneSubAgent('Read it with your prompt.');
    tui.mock.respond(responder);
    pane.type('delegate one task');
    const text = await pane.screen(/the model hears of this with your next prompt/);
    expect(text).toContain('◆ sub-1 finished: find the config loader');
    expect(text).not.toContain('woke the parent');
    expect(parent).toHaveLength(2);
    pane.type('anything new?');
    await pane.screen(/Read it with your prompt\./);
    expect(parent).toHaveLength(3);
  });

  for (const wakeOnComplete of [true, false]) {
    it(`shows a completion the model polled in order, never as owed (wakeOnComplete ${wakeOnComplete})`, async () => {
      const pane = await tui.start({ settings: { wakeOnComplete } });
      const parent: RecordedRequest[] = [];
      tui.mock.respond((request): Reply => {
        if (isChild(request)) return { text: 'the loader is in src/config.ts', delayMs: 800 };
        parent.push(request);
        const last = lastUserText(request);
        if (last.includes('retrieve its summary')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
        if (last.includes('tool_result')) return { text: 'Got it: src/config.ts.' };
        return { toolCalls: [{ name: 'agent_start', args: { task: 'find the config loader' } }] };
      });
      pane.type('find it and wait for the answer');
      const text = await pane.screen(/Got it: src\/config\.ts\./);
      expect(text).toContain('◆ sub-1 finished: find the config loader');
      expect(text.indexOf('◆ sub-1 finished')).toBeLessThan(text.indexOf('Got it: src/config.ts.'));
      expect(text).not.toContain('the model hears of this');
      // Nothing is owed (the model polled it), so no wake turn can start by itself.
      pane.type('/agents');
      await pane.screen(/Sub-agents \(1\)/);
      pane.key('Enter');
      const detail = await pane.screen(/Parent: read by the parent \(agent_poll\)/);
      expect(detail).not.toContain('woke the parent');
      expect(detail).not.toContain('the model hears of this');
      expect(parent).toHaveLength(3);
    });
  }
});
