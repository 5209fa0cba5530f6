import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STOP_POLL_MS, terminateGroup, terminateMarked } from '../../../src/core/platform/process-group.js';
import type { Timers } from '../../../src/core/platform/timers.js';
import { FakeClock, settle } from '../../support/fake-clock.js';
import { exited, expectExited, pidWrittenTo } from '../../support/process.js';
import { until } from '../../support/until.js';
import { type TempDir, tempDir } from '../tools/harness.js';

// Real processes, a fake clock: SIGTERM goes out at once, and the SIGKILL only when the clock
// reaches the grace. `sleep 300`: a test passes only if the process really was stopped.

let dir: TempDir;
const started: number[] = [];
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  for (const pid of started.splice(0)) if (!exited(pid)) process.kill(pid, 'SIGKILL');
  dir.cleanup();
});

/** Runs `script` with sh in a process group (and session) of its own, as commands are run. */
function startGroup(script: string, env: NodeJS.ProcessEnv = process.env): ChildProcess & { pid: number } {
  const child = spawn('sh', ['-c', script], { cwd: dir.root, detached: true, stdio: 'ignore', env });
  started.push(child.pid!);
  return child as ChildProcess & { pid: number };
}

/** The pid a command wrote to `name`, once it is there whole. */
function pidIn(name: string): Promise<number> {
  return pidWrittenTo(path.join(dir.root, name), (pid) => started.push(pid));
}

/** Whether `promise` has settled, without waiting for it. */
function tracked(promise: Promise<void>): () => boolean {
  let settled = false;
  void promise.then(() => (settled = true));
  return () => settled;
}

describe('terminateGroup', () => {
  it('sends SIGKILL to a group that ignores SIGTERM when the grace runs out, not before; done says when', async () => {
    const clock = new FakeClock();
    // The pid is written once the trap is set: a SIGTERM before it would prove nothing.
    const leader = startGroup('trap "" TERM; echo $$ > leader; exec sleep 300');
    expect(await pidIn('leader')).toBe(leader.pid);
    const stop = terminateGroup(leader.pid, 1_000, clock);
    expect(stop.reached).toBe(true);
    const done = tracked(stop.done);
    clock.advance(999);
    await settle();
    expect(done()).toBe(false);
    expect(exited(leader.pid)).toBe(false);
    clock.advance(1);
    await stop.done;
    await expectExited(leader.pid);
  });

  it('ends as soon as the group is gone, long before its grace, with no SIGKILL needed', async () => {
    const clock = new FakeClock();
    const leader = startGroup('echo $$ > leader; exec sleep 300');
    await pidIn('leader');
    const stop = terminateGroup(leader.pid, 600_000, clock);
    const done = tracked(stop.done);
    await until(done, { what: 'the stop to see the group gone', between: () => clock.advance(STOP_POLL_MS) });
    expect(clock.now()).toBeLessThan(600_000);
    await expectExited(leader.pid);
  });

  it('reaches nothing when the group is already gone', async () => {
    const leader = startGroup('exit 0');
    await until(() => leader.exitCode !== null, { what: 'sh to exit' });
    await until(() => !isGroupAlive(leader.pid), { what: 'the group to be gone' });
    const stop = terminateGroup(leader.pid, 1_000, new FakeClock());
    expect(stop.reached).toBe(false);
    await stop.done;
  });

  it("keeps its timers ref'd: an exit cannot come between SIGTERM and SIGKILL", async () => {
    const handles: NodeJS.Timeout[] = [];
    const recording: Timers = {
      setTimeout: (fn, ms) => {
        const handle = setTimeout(fn, ms);
        handles.push(handle);
        return handle;
      },
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    };
    const leader = startGroup('trap "" TERM; echo $$ > leader; exec sleep 300');
    await pidIn('leader');
    const stop = terminateGroup(leader.pid, 200, recording);
    expect(handles.length).toBeGreaterThan(0);
    expect(handles.every((handle) => handle.hasRef())).toBe(true);
    await stop.done;
    await expectExited(leader.pid);
  });
});

describe('terminateMarked', () => {
  it('stops a marked process that left the group and ignores SIGTERM, and a member of its new group that cleared its environment', async () => {
    const clock = new FakeClock();
    const env = { ...process.env, OUTRIDER_TEST_MARK: 'mark-1' };
    // The escaped shell ignores SIGTERM, then starts a child without any environment (no mark) in its new group.
    startGroup(
      `setsid sh -c 'trap "" TERM; env -i sleep 300 & echo $! > cleared; echo $$ > escaped; exec sleep 300' & wait`,
      env,
    );
    const escaped = await pidIn('escaped');
    const cleared = await pidIn('cleared');
    const stop = terminateMarked('OUTRIDER_TEST_MARK', 'mark-1', 1_000, clock);
    expect(stop.reached).toBe(true);
    const done = tracked(stop.done);
    clock.advance(999);
    await settle();
    expect(done()).toBe(false);
    expect(exited(escaped)).toBe(false);
    expect(exited(cleared)).toBe(false);
    clock.advance(1);
    await stop.done;
    await expectExited(escaped);
    await expectExited(cleared);
  });

  it("signals only the marked processes of a group whose leader is not marked (an editor's terminal), never the leader", async () => {
    const clock = new FakeClock();
    // The leader (an editor, say) carries no mark; the command it started in its own group does.
    const leader = startGroup(`OUTRIDER_TEST_MARK=mark-3 sleep 300 & echo $! > marked; exec sleep 300`);
    const marked = await pidIn('marked');
    const stop = terminateMarked('OUTRIDER_TEST_MARK', 'mark-3', 1_000, clock);
    expect(stop.reached).toBe(true);
    clock.advance(1_000);
    await stop.done;
    await expectExited(marked);
    expect(exited(leader.pid)).toBe(false);
  });

  it('reaches nothing when no process carries the mark', async () => {
    const stop = terminateMarked('OUTRIDER_TEST_MARK', 'nobody-has-this', 1_000, new FakeClock());
    expect(stop.reached).toBe(false);
    await stop.done;
  });
});

function isGroupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
