import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Reply } from '../support/mock-provider.js';
import { isChild, lastUserText, useTui } from '../support/tmux.js';

/**
 * `statusLine` and `subagentStatusLine` in the built binary, in tmux, against the mock provider:
 * scripts in the user's settings read their JSON on stdin (node, no jq) and print a line.
 */
const tui = useTui();

/** A node script in a temporary folder, as a settings command. */
function script(body: string): string {
  const file = path.join(tui.tempDir('outrider-status-script-'), 'status.mjs');
  writeFileSync(
    file,
    `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => { const j = JSON.parse(s); ${body} });\n`,
  );
  return `"${process.execPath}" "${file}"`;
}

describe('status lines end to end', () => {
  it("shows the statusLine script's line, and changes it after a turn and a mode change", async () => {
    // Hostile bits too: a window title (OSC) and a screen clear, which must never reach the terminal.
    const statusLine = script(
      "process.stdout.write('\\u001b]0;pwned-title\\u0007\\u001b[2J\\u001b[32mSL\\u001b[0m ' + j.hook_event_name + ' mode=' + j.outrider.mode + ' lines=+' + j.cost.total_lines_added + ' cwd=' + (j.workspace.current_dir === j.cwd) + '\\nsecond line\\n')",
    );
    const pane = await tui.start({
      args: ['--yolo'],
      settings: { statusLine: { type: 'command', command: statusLine, padding: 1 } },
    });
    await pane.screen(/^ SL Status mode=yolo lines=\+0 cwd=true$/m);

    tui.mock.respond((request): Reply => {
      if (lastUserText(request).includes('tool_result')) return { text: 'Wrote the notes.' };
      return { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'one\ntwo\nthree\n' } }] };
    });
    pane.type('write three lines');
    await pane.screen(/Wrote the notes\./);
    await pane.screen(/^ SL Status mode=yolo lines=\+3 cwd=true$/m);

    pane.key('BTab');
    const screen = await pane.screen(/^ SL Status mode=default lines=\+3 cwd=true$/m);
    expect(screen).not.toContain('second line');
    const output = pane.output();
    expect(output).not.toContain('pwned-title');
    expect(output).not.toContain('\u001b[2J');
    // Its colour is kept.
    expect(output).toContain('\u001b[32mSL');
  });

  it("shows the subagentStatusLine script's line in a running job's row", async () => {
    const rowLine = script(
      "console.log('ROW ' + j.id + ' ' + j.definition + ' ' + j.state + ' task=' + j.task + ' worktree=' + j.worktree)",
    );
    const pane = await tui.start({ settings: { subagentStatusLine: { type: 'command', command: rowLine } } });
    let release = (): void => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    tui.mock.respond(async (request): Promise<Reply> => {
      if (isChild(request)) {
        await released;
        return { text: 'counted 3 files' };
      }
      if (lastUserText(request).includes('tool_result')) return { text: 'Started a counter.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'count the files' } }] };
    });
    pane.type('start a counter');
    await pane.screen(/Started a counter\./);
    await pane.screen(/^sub-1 {2}ROW sub-1 explore running task=count the files worktree=null$/m);
    release();
    await pane.screen(/◆ sub-1 finished: count the files/);
    const after = pane.capture();
    expect(after).not.toMatch(/ROW sub-1/);
  });

  it('tells once, dimmed, that a failing statusLine failed; the app goes on', async () => {
    const pane = await tui.start({
      settings: { statusLine: { type: 'command', command: 'echo "no jq here" >&2; exit 1' } },
    });
    await pane.screen(/status line \(statusLine\): `echo "no jq here" >&2; exit 1` exited with 1: no jq here\./);
    tui.mock.respond((): Reply => ({ text: 'still here' }));
    pane.type('hello');
    await pane.screen(/still here/);
    pane.key('BTab');
    pane.key('BTab');
    await pane.screen(/^plan · /m);
    expect(pane.capture({ history: true }).match(/status line \(statusLine\)/g)).toHaveLength(1);
  });
});
