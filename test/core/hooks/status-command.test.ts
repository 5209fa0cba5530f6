import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STATUS_TIMEOUT_MS, statusCommands, statusOutcome } from '../../../src/core/hooks/status-command.js';
import { FakeClock } from '../../support/fake-clock.js';
import { expectExited } from '../../support/process.js';
import { until } from '../../support/until.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-status-command-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ESC = '\u001b';
const env = () => ({ PATH: process.env.PATH });
const signal = () => new AbortController().signal;

/** The main status command of settings `{ statusLine: { command } }`. */
function main(command: string, options: { clock?: FakeClock; env?: NodeJS.ProcessEnv } = {}) {
  const commands = statusCommands(
    { statusLine: { type: 'command', command, padding: 2 } },
    { cwd: dir, env: options.env ?? env(), ...(options.clock ? { timers: options.clock } : {}) },
  );
  return commands.main!;
}

/** A node script in the temporary folder, run with this node. */
function script(name: string, body: string): string {
  writeFileSync(path.join(dir, name), body);
  return `"${process.execPath}" "${path.join(dir, name)}"`;
}

describe('status line commands', () => {
  it('are made only for the settings that name them, with their padding', () => {
    expect(statusCommands({}, { cwd: dir, env: env() })).toEqual({});
    const both = statusCommands(
      { statusLine: { type: 'command', command: 'a' }, subagentStatusLine: { type: 'command', command: 'b', padding: 3 } },
      { cwd: dir, env: env() },
    );
    expect([both.main?.command, both.main?.padding, both.subagent?.command, both.subagent?.padding]).toEqual(['a', 0, 'b', 3]);
  });

  it("read the JSON on stdin and give their stdout's first line, colours kept", async () => {
    const command = main(
      script(
        'status.mjs',
        `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {
           const j = JSON.parse(s);
           process.stdout.write('\\u001b[32m' + j.model.display_name + '\\u001b[0m in ' + j.workspace.current_dir + '\\nsecond line\\n');
         });`,
      ),
    );
    const outcome = await command.run({ model: { display_name: 'Opus' }, workspace: { current_dir: '/x' } }, signal());
    expect(outcome).toEqual({ kind: 'line', line: `${ESC}[32mOpus${ESC}[0m in /x${ESC}[0m` });
  });

  it('run in the project folder with CLAUDE_PROJECT_DIR, and without what they are not given (the provider key)', async () => {
    const outcome = await main('echo "$(pwd) $CLAUDE_PROJECT_DIR $OUTRIDER_PROJECT_DIR ${ANTHROPIC_API_KEY:-nokey}"').run(
      {},
      signal(),
    );
    expect(outcome).toEqual({ kind: 'line', line: `${dir} ${dir} ${dir} nokey` });
  });

  it('a command that exits 1 fails with what it said on stderr; one that only writes stderr and exits 0 shows an empty line', async () => {
    expect(await main('echo partial; echo "jq: not found" >&2; exit 1').run({}, signal())).toEqual({
      kind: 'failed',
      reason: 'exited with 1: jq: not found',
    });
    expect(await main('exit 3').run({}, signal())).toEqual({ kind: 'failed', reason: 'exited with 3' });
    expect(await main('echo noise >&2').run({}, signal())).toEqual({ kind: 'line', line: '' });
    expect(await main('no-such-command-for-status').run({}, signal())).toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^exited with 127: .*not found/),
    });
  });

  it('a hostile failure message is one plain line: no escapes, no second line', async () => {
    const outcome = await main(`printf '\\033]0;pwned\\007\\033[2Jbad\\033[31m red\\nmore' >&2; exit 2`).run({}, signal());
    expect(outcome).toEqual({ kind: 'failed', reason: 'exited with 2: bad red' });
  });

  it('a command that never exits is stopped with its process group after 5 s, and says so', async () => {
    const clock = new FakeClock();
    const pending = main(`(sleep 300 & echo $! > "${dir}/child"; wait) & echo $! > "${dir}/pid"; wait`, { clock }).run(
      {},
      signal(),
    );
    const pids = await until(
      () =>
        existsSync(`${dir}/pid`) &&
        existsSync(`${dir}/child`) &&
        [readFileSync(`${dir}/pid`, 'utf8'), readFileSync(`${dir}/child`, 'utf8')].map(Number).filter((n) => n > 0),
      { what: 'the command and its child to start' },
    );
    expect(pids).toHaveLength(2);
    clock.advance(STATUS_TIMEOUT_MS);
    expect(await pending).toEqual({ kind: 'failed', reason: 'printed no answer within 5 s and was stopped' });
    for (const pid of pids) await expectExited(pid);
  });

  it('a command that ignores SIGTERM is killed after the grace', async () => {
    const clock = new FakeClock();
    const pending = main(`trap '' TERM; echo $$ > "${dir}/pid"; while :; do sleep 1; done`, { clock }).run({}, signal());
    const pid = await until(() => existsSync(`${dir}/pid`) && Number(readFileSync(`${dir}/pid`, 'utf8')), {
      what: 'the command to start',
    });
    let settled = false;
    void pending.then(() => (settled = true));
    await until(
      () => {
        clock.advance(1_000);
        return settled;
      },
      { what: 'the run to settle' },
    );
    expect((await pending).kind).toBe('failed');
    await expectExited(pid);
  });

  it('a megabyte line without a newline, or binary output, gives a short safe line', async () => {
    const flood = await main(`head -c 1048576 /dev/zero | tr '\\0' x`).run({}, signal());
    expect(flood).toEqual({ kind: 'line', line: 'x'.repeat(1000) });
    const binary = await main(`printf '\\377\\376\\033[2J\\033]0;t\\007ok\\000\\n'`).run({}, signal());
    expect(binary).toEqual({ kind: 'line', line: '\ufffd\ufffdok' });
  });

  it('a run stopped because the app closed is aborted, not a failure', async () => {
    const controller = new AbortController();
    const pending = main(`echo $$ > "${dir}/pid"; sleep 300`).run({}, controller.signal);
    const pid = await until(() => existsSync(`${dir}/pid`) && Number(readFileSync(`${dir}/pid`, 'utf8')), {
      what: 'the command to start',
    });
    controller.abort();
    expect(await pending).toEqual({ kind: 'aborted' });
    await expectExited(pid);
  });

  it('a command that cannot start is a failure, not a throw', () => {
    expect(statusOutcome({ command: 'x', exitCode: null, stdout: '', stderr: '', spawnError: 'spawn /bin/sh ENOENT' })).toEqual({
      kind: 'failed',
      reason: 'could not start: spawn /bin/sh ENOENT',
    });
    expect(statusOutcome({ command: 'x', exitCode: null, stdout: '', stderr: '' })).toEqual({
      kind: 'failed',
      reason: 'was ended by a signal',
    });
  });
});
