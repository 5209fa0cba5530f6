import { describe, expect, it } from 'vitest';
import { useTui } from '../support/tmux.js';
import { until } from '../support/until.js';

/** The input editor in the real terminal: several lines, pastes, history across runs, completion. */
const tui = useTui();
/** The text of the last message of the model request `n`. */
const promptOf = (n: number): string => {
  const messages = tui.mock.requests[n]!.body.messages as { content: { text?: string }[] }[];
  return messages[messages.length - 1]!.content.map((block) => block.text ?? '').join('');
};

describe('the input editor', () => {
  it('sends several lines (backslash-Enter, a paste), keeps the history for the next run, and completes commands', async () => {
    const pane = await tui.start();
    tui.mock.script({ text: 'Got both lines.' }, { text: 'Got the paste.' });
    // Keys sent at once reach the app as one chunk, which is a paste (kept as typed); wait between them as a person would.
    pane.key('-l', 'first line\\');
    await pane.screen(/│ › first line\\ /);
    pane.key('Enter');
    await pane.screen(/│ › first line +│\n│ {3} /);
    pane.key('-l', 'second line');
    await pane.screen(/│ {3}second line/);
    pane.key('Enter');
    await pane.screen(/Got both lines\./);
    expect(promptOf(0)).toBe('first line\nsecond line');

    pane.paste('pasted one\npasted two');
    await pane.screen(/│ {3}pasted two/);
    pane.key('Enter');
    await pane.screen(/Got the paste\./);
    expect(promptOf(1)).toBe('pasted one\npasted two');

    pane.key('-l', '/co');
    await pane.screen(/\/compact .*summarize[\s\S]*\/cost/);
    pane.key('Down', 'Tab');
    await pane.screen(/│ › \/cost /);
    pane.key('C-c');
    await pane.screen(/│ › +│/);
    pane.key('C-c');
    await pane.screen(/press Ctrl\+C again/);
    pane.key('C-c');
    await until(() => pane.dead(), { what: 'outrider to quit', observe: () => pane.capture() });

    // The next run in the same project remembers what was sent.
    const again = tui.launch({
      home: pane.home,
      project: pane.project,
      variables: [`ANTHROPIC_API_KEY=test`, `ANTHROPIC_BASE_URL=${tui.mock.anthropicBaseURL}`],
    });
    await again.screen(/\/help/);
    again.key('Up');
    await again.screen(/│ › pasted one[\s\S]*│ {3}pasted two/);
    again.key('Up', 'Up', 'Up');
    await again.screen(/│ › first line/);
  });
});
