import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { type Pane, isChild, lastUserText, useTui } from '../support/tmux.js';
import { until } from '../support/until.js';

/**
 * The job view in the built binary, in tmux, against the mock provider: a job of a fan-out
 * opened from /agents on the terminal's alternate screen, followed live, sent a message from its
 * line; Esc back to the chat, which went on meanwhile and prints what it said once; a finished
 * job's view, and an earlier run's job after --continue.
 */
const tui = useTui();
const variables = () => [`ANTHROPIC_API_KEY=test`, `ANTHROPIC_BASE_URL=${tui.mock.anthropicBaseURL}`];

/** The job's own requests (its first message holds its task). */
const requestsOf = (task: string) =>
  tui.mock.requests.filter((r: RecordedRequest) => isChild(r) && JSON.stringify(r.body.messages[0]).includes(task));
const parentRequests = () => tui.mock.requests.filter((r: RecordedRequest) => !isChild(r));
/** How many times `text` shows in `screen`. */
const count = (screen: string, text: string) => screen.split(text).length - 1;

/** A reply held until the test lets it go. */
function gate() {
  let open = (): void => {};
  const held = new Promise<void>((resolve) => (open = resolve));
  return { held, open };
}

async function quit(pane: Pane): Promise<void> {
  pane.key('C-c');
  await pane.screen(/press Ctrl\+C again/);
  pane.key('C-c');
  await pane.screen(/outrider --resume \S+/);
}

describe('the job view end to end', () => {
  it('opens a job of a fan-out full screen, follows it, sends it a message, and goes back to the chat that went on', async () => {
    const pane = await tui.start();
    const first = gate();
    const second = gate();
    const other = gate();
    tui.mock.respond(async (request): Promise<Reply> => {
      if (isChild(request)) {
        if (!JSON.stringify(request.body.messages[0]).includes('survey the loader')) {
          await other.held;
          return { text: 'the tests are fine' };
        }
        const n = request.body.messages.length;
        if (n === 1) {
          await first.held;
          return {
            text: '## Survey\n\nThe loader reads **three** files.',
            toolCalls: [{ name: 'list_dir', args: { path: '.' } }],
          };
        }
        if (n === 3) {
          await second.held;
          return { text: 'Listed them.' };
        }
        return { text: 'Read your note too.' };
      }
      if (lastUserText(request).includes('tool_result')) return { text: 'Two are on it.' };
      if (request.body.messages.length === 1)
        return {
          toolCalls: [
            { name: 'agent_start', args: { task: 'survey the loader' } },
            { name: 'agent_start', args: { task: 'check the tests' } },
          ],
        };
      return { text: 'The parent heard of sub-2.' };
    });
    pane.type('fan out');
    await pane.screen(/Two are on it\.[\s\S]*sub-1 {2}thinking[\s\S]*sub-2 {2}thinking/);
    pane.type('/agents');
    await pane.screen(/Sub-agents \(2\)/);
    pane.key('Enter');
    const opened = await pane.screen(/── transcript/);
    expect(opened).toMatch(/sub-1 · explore · running/);
    expect(opened).toMatch(/Used: 1 of 10 turns/);
    expect(opened).toMatch(/› Task:\nsurvey the loader/);
    // The whole screen is the job's: the chat's transcript and its live area are not on it.
    expect(opened).not.toContain('Two are on it.');
    expect(opened).not.toContain('Sub-agents (2)');

    first.open();
    const live = await pane.screen(/● list_dir \.\n {2}⎿ /);
    expect(live).toMatch(/Survey\n(\n)?The loader reads three files\./);
    expect(live).not.toContain('## Survey');
    expect(live).not.toContain('**three**');

    // Behind the view the chat goes on: sub-2 ends, the parent wakes and answers.
    other.open();
    await until(() => parentRequests().length === 3, { what: "the parent's wake", observe: () => pane.capture() });
    await pane.screen(/sub-1 · explore · running/);
    expect(pane.capture()).not.toContain('◆ sub-2 finished');

    // A message from the view's line reaches the job's next request.
    pane.key('Enter');
    await pane.screen(/Enter send to sub-1 · Esc cancel/);
    pane.type('xml files count too');
    await pane.screen(/sent to sub-1: it reads it at its next step/);
    expect(requestsOf('survey the loader')).toHaveLength(2);
    second.open();
    await until(() => requestsOf('survey the loader').length === 3, {
      what: "sub-1's third request",
      observe: () => pane.capture(),
    });
    expect(lastUserText(requestsOf('survey the loader')[2]!)).toContain('Message from the user:\\nxml files count too');
    const ended = await pane.screen(/Read your note too\./);
    expect(ended).toMatch(/Listed them\.\n[\s\S]*› xml files count too\n[\s\S]*Read your note too\./);
    expect(ended).toMatch(/sub-1 · explore · done/);

    // Esc: the normal screen as it was, then what the chat said meanwhile, each line once.
    pane.key('Escape');
    await pane.screen(/◆ sub-2 finished: check the tests[\s\S]*↑\/↓ move · Enter open · x stop · Esc back/);
    const history = await pane.screen(/The parent heard of sub-2\./, { history: true });
    expect(count(history, '› fan out')).toBe(1);
    expect(count(history, 'Two are on it.')).toBe(1);
    expect(count(history, '◆ sub-2 finished: check the tests')).toBe(1);
    expect(history.indexOf('Two are on it.')).toBeLessThan(history.indexOf('◆ sub-2 finished'));
    // The view was drawn on the alternate screen only: none of it is in the scrollback.
    expect(history).not.toContain('── transcript');
    expect(history).not.toContain('Listed them.');
    expect(pane.output()).toContain('\u001B[?1049h');
    expect(pane.output()).toContain('\u001B[?1049l');
  });

  it("a finished job's view stays readable, and so does an earlier run's job after --continue", async () => {
    const pane = await tui.start({ args: ['--yolo'] });
    tui.mock.respond((request): Reply => {
      if (isChild(request)) {
        if (request.body.messages.length === 1)
          return {
            text: 'Writing **notes.txt**:',
            toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'first line\nsecond line\n' } }],
          };
        return { text: 'Wrote `notes.txt` with two lines.' };
      }
      if (request.body.messages.length === 1)
        return { toolCalls: [{ name: 'agent_start', args: { task: 'write the notes', agent: 'general' } }] };
      if (lastUserText(request).includes('tool_result')) return { text: 'Noted.' };
      return { text: 'Heard it finished.' };
    });
    pane.type('write notes');
    // The job's end wakes the parent: its turn is over before the keys below (a Ctrl+C would interrupt it).
    await pane.screen(/◆ sub-1 finished: write the notes[\s\S]*Heard it finished\./);
    pane.type('/agents');
    await pane.screen(/Sub-agents \(1\)/);
    pane.key('Enter');
    const view = await pane.screen(/Wrote notes\.txt with two lines\./);
    expect(view).toMatch(/sub-1 · general · done/);
    expect(view).toMatch(
      /Writing notes\.txt:\n● write_file notes\.txt\n {2}⎿ Created notes\.txt \(2 lines\)\n {4}\+first line\n {4}\+second line/,
    );
    expect(view).toMatch(/── end ─/);
    expect(view).not.toMatch(/x stop/);
    pane.key('x');
    await pane.screen(/sub-1 has already ended/);
    pane.key('Escape');
    await pane.screen(/↑\/↓ move · Enter open · x stop · Esc back/);
    pane.key('Escape');
    // Back at the prompt before the next key: a key right after Esc would read as Alt+key.
    await until(() => !pane.capture().includes('Sub-agents (1)'), { what: '/agents to close', observe: () => pane.capture() });
    await quit(pane);

    const again = tui.launch({ home: pane.home, project: pane.project, variables: variables(), args: ['--continue'] });
    await again.screen(/resumed \S+: the model remembers/);
    again.type('/agents');
    await again.screen(/Sub-agents \(1\)/);
    again.key('Enter');
    const stored = await again.screen(/Wrote notes\.txt with two lines\./);
    expect(stored).toMatch(/› Task:\nwrite the notes/);
    expect(stored).toMatch(/\+second line/);
    again.key('Escape');
    const list = await again.screen(/↑\/↓ move · Enter open · x stop · Esc back/);
    expect(list).toContain('Sub-agents (1)');
  });
});
