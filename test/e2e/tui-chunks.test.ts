import { describe, expect, it } from 'vitest';
import { useTui } from '../support/tmux.js';

/** Keys that reach the built binary in one write: control keys inside act as typed, in order. */
const tui = useTui();
const promptOf = (n: number): string => {
  const messages = tui.mock.requests[n]!.body.messages as { content: { text?: string }[] }[];
  return messages[messages.length - 1]!.content.map((block) => block.text ?? '').join('');
};
/** `send-keys -H`: the bytes of `text`, written to the terminal at once. */
const hex = (text: string): string[] => Array.from(Buffer.from(text, 'utf8'), (byte) => byte.toString(16).padStart(2, '0'));

describe('keys in one write', () => {
  it('Ctrl+U then text in one chunk edits the input, and a later chunk with Backspace and Ctrl+A too', async () => {
    const pane = await tui.start();
    tui.mock.script({ text: 'Got the edit.' });
    pane.key('-l', 'old draft');
    await pane.screen(/│ › old draft /);
    pane.key('-H', ...hex('\u0015fresh'));
    await pane.screen(/│ › fresh /);
    expect(pane.capture()).not.toContain('old draft');
    // Backspace (DEL), then Ctrl+A and text before, then Ctrl+E and text after: one write.
    pane.key('-H', ...hex('hx\u007f\u0001> \u0005!'));
    await pane.screen(/│ › > freshh! /);
    pane.key('Enter');
    await pane.screen(/Got the edit\./);
    expect(promptOf(0)).toBe('> freshh!');
  });
});
