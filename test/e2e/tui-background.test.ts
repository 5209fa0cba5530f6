import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { exited, expectExited } from '../support/process.js';
import { isChild, lastUserText, useTui } from '../support/tmux.js';
import { until } from '../support/until.js';

/** Ctrl+B in the real terminal: a long foreground bash call goes on as a shell job. */
const tui = useTui();

describe('Ctrl+B', () => {
  it('moves a running bash command to the background: the call returns, the turn goes on, a shell row appears', async () => {
    const pane = await tui.start({ args: ['--yolo'] });
    tui.mock.respond((request: RecordedRequest): Reply => {
      if (isChild(request)) return { text: 'no children here' };
      const last = lastUserText(request);
      if (last.includes('moved to background as sh-1')) return { text: 'the build goes on as sh-1' };
      if (last.includes('run the long build')) return { toolCalls: [{ name: 'bash', args: { command: 'sleep 120' } }] };
      return { text: `unexpected: ${last.slice(0, 120)}` };
    });
    pane.type('run the long build');
    await pane.screen(/running bash/);
    pane.key('C-b');
    await pane.screen(/moved to the background as sh-1/);
    await pane.screen(/the build goes on as sh-1/);
    // The process goes on as the job: its row stays while the parent is idle again.
    const screen = await pane.screen(/^sh-1 {2}sleep 120/m);
    expect(screen).not.toContain('unexpected:');
    // The model heard of the move once, as the bash call's result.
    expect(tui.mock.requests.filter((r) => !isChild(r) && lastUserText(r).includes('moved to background as sh-1'))).toHaveLength(
      1,
    );
  });
});

describe('quitting', () => {
  it('ends what a command left running, a child that ignores SIGTERM included', async () => {
    const pane = await tui.start({ args: ['--yolo'] });
    const pidFile = path.join(pane.project, 'deaf.pid');
    tui.mock.respond((request: RecordedRequest): Reply => {
      if (lastUserText(request).includes('start it'))
        return {
          toolCalls: [
            { name: 'bash', args: { command: `(trap "" TERM; nohup sleep 300 > /dev/null 2>&1 & echo $! > deaf.pid)` } },
          ],
        };
      return { text: 'started it' };
    });
    pane.type('start it');
    await pane.screen(/started it/);
    const pid = await until(() => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) || undefined : undefined), {
      what: 'the pid of the child',
    });
    try {
      pane.key('C-c');
      await pane.screen(/press Ctrl\+C again/);
      pane.key('C-c');
      await pane.screen(/outrider --resume/);
      await expectExited(pid);
    } finally {
      if (!exited(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
