import { describe, expect, it } from 'vitest';
import { useTui } from '../support/tmux.js';
import { until } from '../support/until.js';

/** Keys in the real terminal: what Ctrl+C and Shift+Tab do depends on the moment. */
const tui = useTui();

describe('keys in the terminal', () => {
  it('Shift+Tab cycles the permission mode shown in the footer; Ctrl+C interrupts a turn, clears a draft, then quits', async () => {
    const pane = await tui.start();
    await pane.screen(/^default · /m);
    pane.key('BTab');
    await pane.screen(/^accept-edits · /m);
    pane.key('BTab', 'BTab');
    await pane.screen(/^yolo · /m);

    tui.mock.script({
      text: 'A reply that streams one slow piece at a time, for a long while.',
      fault: { kind: 'stall', afterChunks: 4 },
    });
    pane.type('talk slowly');
    await pane.screen(/A reply/);
    pane.key('C-c');
    const interrupted = await pane.screen(/■ interrupted/);
    expect(interrupted).not.toContain('press Ctrl+C again');

    pane.key('-l', 'a draft to drop');
    await pane.screen(/a draft to drop/);
    pane.key('C-c');
    await until(() => !pane.capture().includes('a draft to drop'), {
      what: 'the draft to be cleared',
      observe: () => pane.capture(),
    });
    pane.key('C-c');
    await pane.screen(/press Ctrl\+C again to quit/);
    pane.key('C-c');
    await until(() => pane.dead(), { what: 'outrider to quit', observe: () => pane.capture() });
  });
});
