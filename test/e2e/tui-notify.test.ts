import { describe, expect, it } from 'vitest';
import { useTui } from '../support/tmux.js';
import { until } from '../support/until.js';

/** Notifications in the real terminal: only when the app is not in front. */
const tui = useTui();

describe('notifications', () => {
  it('rings the bell when a turn finishes while the terminal looks elsewhere, not while it is in front', async () => {
    const pane = await tui.start();
    tui.mock.script({ text: 'In front.' }, { text: 'Behind your back.', delayMs: 800 });
    pane.type('first');
    await pane.screen(/In front\./);
    expect(pane.output()).not.toContain('\u0007');
    pane.type('second');
    pane.focus(false);
    await pane.screen(/Behind your back\./);
    await until(() => pane.output().includes('\u0007'), { what: 'the bell' });
    pane.focus(true);
    expect(pane.capture()).not.toContain('[O');
  });
});
