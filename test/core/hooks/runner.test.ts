import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOOK_OUTPUT_CAP, runHook } from '../../../src/core/hooks/runner.js';
import { OWNER_MARKER, ownerMark } from '../../../src/core/platform/process-group.js';
import { FakeClock } from '../../support/fake-clock.js';
import { expectExited } from '../../support/process.js';
import { until } from '../../support/until.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-hook-runner-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = () => ({ cwd: dir, env: { PATH: process.env.PATH }, timeoutMs: 60_000, signal: new AbortController().signal });

/** A command that records its pid, then waits far longer than any test (until it is stopped). */
const waiting = () => `echo $$ > "${dir}/pid"; sleep 30`;
const pidOf = () =>
  until(() => existsSync(`${dir}/pid`) && Number(readFileSync(`${dir}/pid`, 'utf8')), { what: 'the hook to start' });

describe('runHook', () => {
  it('gives the event as JSON on stdin and returns exit code, stdout and stderr', async () => {
    const run = await runHook({
      ...base(),
      command: `read line; echo "got $line"; echo oops >&2; exit 3`,
      input: { hook_event_name: 'Stop', n: 1 },
    });
    expect(run).toEqual({
      command: expect.any(String),
      exitCode: 3,
      stdout: 'got {"hook_event_name":"Stop","n":1}\n',
      stderr: 'oops\n',
    });
  });

  it('runs in the project folder with the environment it is given', async () => {
    const run = await runHook({ ...base(), env: { PATH: process.env.PATH, ONLY: 'this' }, command: 'pwd; env', input: {} });
    expect(run.stdout.split('\n')[0]).toBe(dir);
    expect(run.stdout).toContain('ONLY=this');
    expect(run.stdout).not.toContain('HOME=');
    // …marked as outrider's, so what it leaves running ends with outrider (process-group.ts terminateOwned).
    expect(run.stdout).toContain(`${OWNER_MARKER}=${ownerMark()}`);
  });

  it('a hook that never reads stdin, or closes it at once, is not a failure', async () => {
    expect((await runHook({ ...base(), command: 'exec 0<&-; exit 0', input: { big: 'x'.repeat(200_000) } })).exitCode).toBe(0);
  });

  it("stops a hook at its timeout (the clock is the test's) and says so", async () => {
    const clock = new FakeClock();
    const pending = runHook({ ...base(), timers: clock, timeoutMs: 5_000, command: waiting(), input: {} });
    const pid = await pidOf();
    clock.advance(5_000);
    const run = await pending;
    expect(run.timedOut).toEqual({ afterMs: 5_000 });
    expect(run.exitCode).toBeNull();
    await expectExited(pid);
  });

  it('stops a hook when the turn is interrupted', async () => {
    const controller = new AbortController();
    const pending = runHook({ ...base(), signal: controller.signal, command: waiting(), input: {} });
    const pid = await pidOf();
    controller.abort();
    expect((await pending).aborted).toBe(true);
    await expectExited(pid);
  });

  it('does not start when already interrupted', async () => {
    const controller = new AbortController();
    controller.abort();
    const run = await runHook({ ...base(), signal: controller.signal, command: `touch "${dir}/ran"`, input: {} });
    expect(run.aborted).toBe(true);
    expect(existsSync(`${dir}/ran`)).toBe(false);
  });

  it('keeps at most HOOK_OUTPUT_CAP characters of a flood (head and tail)', async () => {
    const run = await runHook({ ...base(), command: `head -c 3000000 /dev/zero | tr '\\0' a; echo END`, input: {} });
    expect(run.exitCode).toBe(0);
    expect(run.stdout.length).toBeLessThan(HOOK_OUTPUT_CAP + 200);
    expect(run.stdout).toMatch(/characters cut from the middle/);
    expect(run.stdout.trimEnd().endsWith('END')).toBe(true);
  });

  it('a hook that cannot start is reported, not thrown', async () => {
    const thrown = await runHook({
      ...base(),
      command: 'x',
      input: {},
      spawn: () => {
        throw new Error('no shell here');
      },
    });
    expect(thrown.spawnError).toBe('no shell here');
    const missing = await runHook({ ...base(), cwd: path.join(dir, 'gone'), command: 'true', input: {} });
    expect(missing.spawnError).toMatch(/ENOENT/);
  });

  it('a hook that leaves a background child holding its output returns with its own exit code', async () => {
    const clock = new FakeClock();
    const pending = runHook({ ...base(), timers: clock, command: `(echo $$ > "${dir}/pid"; sleep 30) & exit 0`, input: {} });
    await pidOf();
    // The drain timer (500 ms after exit) is on the fake clock: move it until the run settles.
    let settled = false;
    void pending.then(() => (settled = true));
    await until(
      () => {
        clock.advance(500);
        return settled;
      },
      { what: 'the run to settle after its background child was stopped' },
    );
    expect((await pending).exitCode).toBe(0);
  });
});
