import { describe, expect, it } from 'vitest';
import { useTui } from '../support/tmux.js';

/**
 * What the model writes (and what tools return, which a repository's files can fill) is drawn
 * on the user's terminal: no escape sequence in it may reach the terminal as a command. OSC
 * sets the window title (0, 2), writes the clipboard (52) and notifies (9); a CSI moves the
 * cursor or clears the screen. Checked on every byte the built app wrote under tmux.
 */
const tui = useTui();

// eslint-disable-next-line no-control-regex -- the escape characters are what is looked for
const OSC = /\u001b\]|\u009d/;

describe("the model's text cannot command the terminal", () => {
  it('draws an answer carrying OSC title, clipboard and notification sequences without them', async () => {
    const pane = await tui.start();
    tui.mock.script({
      text:
        'Start \u001b]52;c;ZWNobyBwd25lZA==\u0007 clip \u001b]2;pwned-title\u001b\\ title ' +
        '\u001b]9;pwned-notice\u0007 note \u009d0;c1-title\u009c \u001b[2J end of answer.',
    });
    pane.type('say it');
    await pane.screen(/end of answer\./);
    const written = pane.output();
    expect(written).not.toMatch(OSC);
    expect(written).not.toContain('pwned');
    expect(written).not.toContain('c1-title');
    // The words around the sequences are still drawn.
    expect(pane.capture()).toMatch(/Start\s+clip\s+title\s+note\s+end of answer\./);
  });
});
