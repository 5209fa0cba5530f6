/**
 * No process a headless run started outlives it, whatever it traps: `outrider -p` exits only
 * after the SIGKILL that follows its SIGTERM, for the groups its commands made and the
 * processes that left them.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import type { Reply } from '../support/mock-provider.js';
import { exited, expectExited, pidWrittenTo } from '../support/process.js';
import { runCli, startCli } from '../support/run-cli.js';
import { until } from '../support/until.js';

const t = useMockProject();

/** Every pid a test read, killed afterwards if it survived (a failing run must not leave sleep 300 behind). */
const seen: number[] = [];
afterEach(() => {
  for (const pid of seen.splice(0)) if (!exited(pid)) process.kill(pid, 'SIGKILL');
});

/** The pid a command wrote to `name`, once it is there whole. */
function pidIn(name: string): Promise<number> {
  return pidWrittenTo(path.join(t.project, name), (pid) => seen.push(pid));
}

/**
 * A child that ignores SIGTERM (set before it is forked, so it is in force once its pid is
 * written), with its output sent away so that nothing holds the command's pipes for it.
 */
const deaf = (pidFile: string) => `(trap "" TERM; nohup sleep 300 > /dev/null 2>&1 & echo $! > ${pidFile})`;

describe('a headless run leaves no process behind', () => {
  it('a command that left a TERM-ignoring nohup child running: the child is gone once outrider exits', async () => {
    t.mock.script({ toolCalls: [{ name: 'bash', args: { command: deaf('deaf.pid') } }] }, { text: 'done' });
    const result = await runCli(['-p', 'run it', '--yolo'], { cwd: t.project, env: t.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('done\n');
    await expectExited(await pidIn('deaf.pid'));
  });

  it('a background shell stopped at the end, whose TERM-ignoring child left its group (setsid): both gone', async () => {
    // The escaped child writes its pid once its trap is set.
    const escape = `setsid sh -c 'trap "" TERM; echo $$ > escaped.pid; exec sleep 300' > /dev/null 2>&1 &`;
    const command = `${deaf('deaf.pid')}; ${escape} sleep 300`;
    t.mock.respond(async (request): Promise<Reply> => {
      if (request.body.messages.length === 1)
        return { toolCalls: [{ name: 'bash', args: { command, run_in_background: true } }] };
      // The run ends with this answer: only once both children are there to be stopped.
      await Promise.all([pidIn('deaf.pid'), pidIn('escaped.pid')]);
      return { text: 'left it running' };
    });
    const result = await runCli(['-p', 'run it', '--yolo', '--output-format', 'json'], { cwd: t.project, env: t.env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).jobs).toEqual([expect.objectContaining({ id: 'sh-1', status: 'aborted' })]);
    const [deafPid, escapedPid] = [await pidIn('deaf.pid'), await pidIn('escaped.pid')];
    await expectExited(deafPid);
    await expectExited(escapedPid);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to outrider while a command runs: its TERM-ignoring child is gone once outrider exits',
    async (signal) => {
      t.mock.script({ toolCalls: [{ name: 'bash', args: { command: `${deaf('deaf.pid')}; sleep 300` } }] }, { text: 'unasked' });
      const cli = startCli(['-p', 'run it', '--yolo'], { cwd: t.project, env: t.env });
      const pid = await pidIn('deaf.pid');
      cli.signal(signal);
      expect((await cli.exited()).code).toBe(1);
      await expectExited(pid);
    },
  );

  it('a second SIGTERM while outrider waits on a child that ignores the first: the child is killed at once, and outrider ends', async () => {
    t.mock.script({ toolCalls: [{ name: 'bash', args: { command: `${deaf('deaf.pid')}; sleep 300` } }] }, { text: 'unasked' });
    const cli = startCli(['-p', 'run it', '--yolo', '--output-format', 'events-json'], { cwd: t.project, env: t.env });
    const pid = await pidIn('deaf.pid');
    cli.signal('SIGTERM');
    // The command was stopped; the child that ignores SIGTERM is what outrider now waits on.
    await until(() => cli.stdout().includes('"type":"tool_end"'), { what: 'the command to be stopped' });
    cli.signal('SIGTERM');
    await cli.exited();
    await expectExited(pid);
  });
});
