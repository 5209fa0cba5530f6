import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { isChild, lastUserText, useTui } from '../support/tmux.js';

/** Ctrl+B in the real terminal: a long foreground bash call goes on as a shell job. */
const tui = useTui();

describe('Ctrl+B', () => {
  it('moves a running bash command to the background: the call returns, the turn goes on, a shell row appears', async () => {
    const pane = await tui.start({ args: ['--yolo'] });
    tui.mock.respond((request: RecordedRequest): Reply => {
      if (isChild(request)) return { text: 'no children here' };
      const last = lastUserText(request);
      if (last.includes('moved to background as sh-1')) return { text: 'the build goes on as sh-1' };
      if (last.includes('run the long build')) return { toolCalls: [{ name: 'bash', args: { command: 'sleep 120' } }] };
      return { text: `unexpected: ${last.slice(0, 120)}` };
    });
    pane.type('run the long build');
    await pane.screen(/running bash/);
    pane.key('C-b');
    await pane.screen(/moved to the background as sh-1/);
    await pane.screen(/the build goes on as sh-1/);
    // The process goes on as the job: its row stays while the parent is idle again.
    const screen = await pane.screen(/^sh-1 {2}sleep 120/m);
    expect(screen).not.toContain('unexpected:');
    // The model heard of the move once, as the bash call's result.
    expect(tui.mock.requests.filter((r) => !isChild(r) && lastUserText(r).includes('moved to background as sh-1'))).toHaveLength(
      1,
    );
  });
});
