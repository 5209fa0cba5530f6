import { afterEach, describe, expect, it } from 'vitest';
import type { StatusCommand, StatusOutcome } from '../../src/core/hooks/status-command.js';
import type { ModelRequest } from '../../src/core/providers/types.js';
import type { UiSession } from '../../src/ui/ui-session.js';
import { type FakeReply, fakeStream } from '../support/fake-stream.js';
import { KEY, type TestSession, frame, fromChild, keys, mountApp, openTestSession, resize } from './harness.js';

let session: TestSession | undefined;
let release = (): void => {};
afterEach(async () => {
  release();
  await session?.close();
  session = undefined;
});

const SHIFT_TAB = '\u001B[Z';
// eslint-disable-next-line no-control-regex -- the escape character is what is matched
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
/** The line above the footer's two: where the status line goes. */
const aboveFooter = (text: string) => plain(text).split('\n').at(-3) ?? '';

/** A status command answered in-process: it records each input and prints what `print` makes of it. */
function command(print: (input: any) => StatusOutcome, padding = 0) {
  const inputs: any[] = [];
  const status: StatusCommand = {
    command: 'statusline.sh',
    padding,
    run: async (input) => {
      inputs.push(input);
      return print(input);
    },
  };
  return { status, inputs };
}

/** The test session's UI face with these status commands. */
const withStatus = (s: TestSession, statusLine: UiSession['statusLine']): TestSession => ({
  ...s,
  ui: Object.assign(Object.create(Object.getPrototypeOf(s.ui) as object) as UiSession, s.ui, { statusLine }),
});

describe('the status line in the app (a real session, the fake clock)', () => {
  it('shows the command’s line under the input, padded; asks again after a mode change and after a turn', async () => {
    session = await openTestSession([
      { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'one\ntwo\n' } }] },
      { text: 'Wrote it.' },
    ]);
    const main = command(
      (input) => ({
        kind: 'line',
        line: `\u001b[36m${input.outrider.mode}\u001b[0m +${input.cost.total_lines_added} ${input.hook_event_name} ${input.model.id}`,
      }),
      2,
    );
    const { rendered, until } = await mountApp(withStatus(session, { main: main.status }));
    await until(() => aboveFooter(frame(rendered)) === `  default +0 Status ${session!.ui.model}` || undefined);
    expect(main.inputs[0]).toMatchObject({
      session_id: session.ui.sessionId,
      cwd: session.ui.root,
      workspace: { current_dir: session.ui.root },
    });
    expect(main.inputs[0].transcript_path).toMatch(/transcript\.jsonl$/);

    await keys(rendered, SHIFT_TAB);
    await until(() => aboveFooter(frame(rendered)).startsWith('  accept-edits +0') || undefined);
    await keys(rendered, 'write the notes', KEY.enter);
    await until(() => frame(rendered).includes('Wrote it.') || undefined);
    await until(() => aboveFooter(frame(rendered)).startsWith('  accept-edits +2') || undefined);
    // Runs were throttled: far fewer than the events of the turn.
    expect(main.inputs.length).toBeLessThan(10);
  });

  it("tells a failing command's first failure once, dimmed, and keeps running", async () => {
    session = await openTestSession([]);
    let fail = true;
    const main = command(() =>
      fail ? { kind: 'failed', reason: 'exited with 1: jq: not found' } : { kind: 'line', line: 'fixed' },
    );
    const { rendered, until, clock } = await mountApp(withStatus(session, { main: main.status }));
    await until(() => frame(rendered).includes('jq: not found') || undefined);
    for (let i = 0; i < 3; i += 1) {
      clock.advance(300);
      await keys(rendered, SHIFT_TAB);
    }
    await until(() => main.inputs.length >= 4 || undefined);
    expect(frame(rendered).match(/status line \(statusLine\): `statusline\.sh` exited with 1: jq: not found/g)).toHaveLength(1);
    fail = false;
    clock.advance(300);
    await keys(rendered, SHIFT_TAB);
    await until(() => aboveFooter(frame(rendered)) === 'fixed' || undefined);
  });

  it("shows each sub-agent row's own line, asking only for the rows on screen", async () => {
    const held = new Promise<void>((resolve) => (release = resolve));
    const starts = ['a', 'b', 'c'].map((task) => ({ name: 'agent_start', args: { task: `task ${task}` } }));
    const stream = fakeStream((request: ModelRequest): FakeReply => {
      if (fromChild(request.system)) return { wait: held, text: 'done' };
      if (JSON.stringify(request.messages.at(-1)).includes('tool_result')) return { text: 'Started three.' };
      return { toolCalls: starts };
    });
    session = await openTestSession([], { stream });
    const s = session;
    const rows = command((input) => ({
      kind: 'line',
      line: `JOB ${input.id} ${input.definition} \u001b[1m${input.task}\u001b[0m`,
    }));
    const { rendered, until } = await mountApp(withStatus(s, { subagent: rows.status }));
    resize(rendered, { rows: 8 });
    await keys(rendered, 'start three', KEY.enter);
    await until(() => frame(rendered).includes('Started three.') || undefined);
    // Room for one row and the `+2 more` line: only sub-1's command runs.
    const one = await until(
      () => (plain(frame(rendered)).includes('sub-1  JOB sub-1 explore task a') && plain(frame(rendered))) || undefined,
    );
    expect(one).toMatch(/\+2 more/);
    expect(new Set(rows.inputs.map((input) => input.id))).toEqual(new Set(['sub-1']));
    expect(rows.inputs[0]).toMatchObject({ hook_event_name: 'SubagentStatus', state: 'running', task: 'task a', worktree: null });

    resize(rendered, { rows: 40 });
    const all = await until(() => {
      const text = plain(frame(rendered));
      return text.includes('sub-2  JOB sub-2') && text.includes('sub-3  JOB sub-3') && text;
    });
    expect(all).not.toMatch(/more running/);
    expect(s.opened.agents.manager.get('sub-1').state).toBe('running');
  });
});
