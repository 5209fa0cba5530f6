import { describe, expect, it } from 'vitest';
import { type Pane, useTui } from '../support/tmux.js';

/** Resuming in the real terminal: the earlier conversation is drawn again. */
const tui = useTui();
const variables = () => [`ANTHROPIC_API_KEY=test`, `ANTHROPIC_BASE_URL=${tui.mock.anthropicBaseURL}`];

/** Quits with Ctrl+C twice and returns the id the app says it saved. */
async function quit(pane: Pane): Promise<string> {
  pane.key('C-c');
  await pane.screen(/press Ctrl\+C again/);
  pane.key('C-c');
  const text = await pane.screen(/outrider --resume (\S+)/);
  return /outrider --resume (\S+)/.exec(text)![1]!;
}

describe('resuming a session', () => {
  it('--resume draws the earlier conversation, and /resume <id> switches to another one', async () => {
    const first = await tui.start();
    tui.mock.script({ text: 'The **first** answer.' });
    first.type('the first question');
    await first.screen(/The first answer\./);
    const firstId = await quit(first);

    const again = tui.launch({
      home: first.home,
      project: first.project,
      variables: variables(),
      args: ['--resume', firstId],
    });
    const text = await again.screen(/resumed \S+: the model remembers 2 earlier messages/);
    expect(text).toContain('› the first question');
    expect(text).toContain('The first answer.');
    expect(text.indexOf('The first answer.')).toBeLessThan(text.indexOf('resumed'));
    const secondId = await quit(again);
    expect(secondId).toBe(firstId);

    // A new session in the same project, then a switch back to the first one.
    const other = tui.launch({ home: first.home, project: first.project, variables: variables() });
    await other.screen(/\/help/);
    tui.mock.script({ text: 'A second answer.' });
    other.type('another question');
    await other.screen(/A second answer\./);
    other.type('/resume');
    const list = await other.screen(new RegExp(`${firstId}.*the first question`));
    expect(list).toContain('Switch to one with /resume <id>');
    other.type(`/resume ${firstId.slice(0, 17)}`);
    const switched = await other.screen(/resumed \S+: the model remembers 2 earlier messages/);
    expect(switched.lastIndexOf('› the first question')).toBeGreaterThan(switched.indexOf('A second answer.'));
    tui.mock.script({ text: 'Back in the first session.' });
    other.type('and now?');
    await other.screen(/Back in the first session\./);
    const request = JSON.stringify(tui.mock.requests.at(-1)!.body.messages);
    expect(request).toContain('the first question');
    expect(request).not.toContain('another question');
  });
});
