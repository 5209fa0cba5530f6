import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { until } from '../support/until.js';
import { type Pane, isChild, lastUserText, useTui } from '../support/tmux.js';

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

describe('resuming a session with jobs', () => {
  it("/agents lists the earlier run's shell as ended, and the next shell is sh-2", async () => {
    const first = await tui.start({ args: ['--yolo'] });
    tui.mock.respond((request: RecordedRequest): Reply => {
      if (isChild(request)) return { text: 'no children here' };
      const last = lastUserText(request);
      if (last.includes('start the first shell'))
        return { toolCalls: [{ name: 'bash', args: { command: 'echo from-the-first-shell', run_in_background: true } }] };
      if (last.includes('start another shell'))
        return { toolCalls: [{ name: 'bash', args: { command: 'echo from-the-second-shell', run_in_background: true } }] };
      if (last.includes('Started background shell'))
        return { text: `started: ${/Started background shell (sh-\d+)/.exec(last)![1]}` };
      if (last.includes('Background shell sh-1 exited')) return { text: 'heard that sh-1 exited' };
      return { text: 'ok' };
    });
    first.type('start the first shell');
    await first.screen(/started: sh-1/);
    await first.screen(/sh-1 finished: echo from-the-first-shell/);
    // The shell's end wakes the parent: quit once that turn is over, or the first Ctrl+C only interrupts it.
    await first.screen(/heard that sh-1 exited/);
    await until(() => !first.capture().includes('Esc to interrupt'), {
      what: 'the wake turn to end',
      observe: () => first.capture(),
    });
    const id = await quit(first);

    const again = tui.launch({
      home: first.home,
      project: first.project,
      variables: variables(),
      args: ['--resume', id, '--yolo'],
    });
    await again.screen(/resumed \S+/);
    again.type('/agents');
    const list = await again.screen(/Sub-agents \(1\)/);
    expect(list).toMatch(/sh-1\s+done\s+shell.*echo from-the-first-shell/);
    again.key('Escape');
    // Back at the prompt before typing: keys right after Esc would read as Alt+key.
    await until(() => !again.capture().includes('Sub-agents (1)'), { what: '/agents to close', observe: () => again.capture() });
    again.type('start another shell');
    await again.screen(/started: sh-2/);
  });
});
