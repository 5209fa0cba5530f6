import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastUserText, useTui } from '../support/tmux.js';
import { until } from '../support/until.js';

/** The commands Claude Code users reach for, in the built binary under tmux (issue 25). */
const tui = useTui();

describe('/clear, /status, /export', () => {
  it('/status names what runs where; /export writes the talk; /clear starts a new conversation, the old one kept', async () => {
    const pane = await tui.start();
    tui.mock.script({ text: 'The first answer.' }, { text: 'A fresh answer.' });
    pane.type('the first question');
    await pane.screen(/The first answer\./);

    pane.type('/status');
    const status = await pane.screen(/^ {2}session {4}\S+/m);
    const id = /^ {2}session {4}(\S+)/m.exec(status)![1]!;
    expect(status).toMatch(/^ {2}provider {3}anthropic/m);
    expect(status).toContain(`  base URL   ${tui.mock.anthropicBaseURL}`);
    expect(status).toMatch(/^ {2}mode {7}default/m);

    pane.type('/export');
    await pane.screen(/exported 2 messages to /);
    const file = path.join(pane.project, `outrider-${id.slice(0, 8)}.md`);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('## You\n\nthe first question\n\nThe first answer.');

    pane.type('/clear');
    await pane.screen(new RegExp(`cleared: a new conversation \\(the last one is kept: /resume ${id}\\)`));
    pane.type('start over');
    await pane.screen(/A fresh answer\./);
    // The model starts afresh: the new request holds the new prompt alone.
    const last = tui.mock.requests.at(-1)!;
    expect(last.body.messages).toHaveLength(1);
    expect(lastUserText(last)).toContain('start over');
  });
});

describe('SessionEnd hooks from the TUI', () => {
  it('are told "clear" for /clear and "prompt_input_exit" for /quit', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-session-end-'));
    const log = path.join(dir, 'end.jsonl');
    const pane = await tui.start({
      settings: { hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: `cat >> "${log}"; echo >> "${log}"` }] }] } },
    });
    const reasons = () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((line) => line.trim())
            .map((line) => (JSON.parse(line) as { reason: string }).reason)
        : [];
    pane.type('/clear');
    await pane.screen(/cleared: a new conversation/);
    await until(() => reasons().length === 1, { what: 'the SessionEnd hook of /clear', observe: reasons });
    pane.type('/quit');
    await until(() => reasons().length === 2, { what: 'the SessionEnd hook of /quit', observe: reasons });
    expect(reasons()).toEqual(['clear', 'prompt_input_exit']);
  });
});
