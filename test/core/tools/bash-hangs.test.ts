import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/core/tools/bash.js';
import type { ToolOutput, Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { FakeClock } from '../../support/fake-clock.js';
import { exited, expectExited } from '../../support/process.js';
import { until } from '../../support/until.js';
import { type TempDir, run, tempDir } from './harness.js';

// A process that leaves the command's process group (setsid) and keeps the output pipe open
// used to hang the call for good: no timeout, abort or group kill reached it. The clock is
// fake; the processes are real and awaited by polling with a deadline.

let dir: TempDir;
let workspace: Workspace;
const leftovers: number[] = [];
beforeEach(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
});
afterEach(() => {
  // Only what a test started and the tool could not reach (a process that dropped the marker).
  for (const pid of leftovers.splice(0)) if (!exited(pid)) process.kill(pid, 'SIGKILL');
  dir.cleanup();
});

/** The shared until(), as these tests call it. */
const waitFor = (condition: () => boolean, what: string) => until(condition, { what });

/** Starts a call on a fake clock; `result()` polls until it settled. */
function start(command: string, options: { timeout_ms?: number; signal?: AbortSignal } = {}) {
  const clock = new FakeClock();
  const lines: string[] = [];
  let settled: ToolOutput | undefined;
  const tool = createBashTool({ timers: clock });
  void run(
    tool,
    { command, ...(options.timeout_ms ? { timeout_ms: options.timeout_ms } : {}) },
    {
      workspace,
      signal: options.signal,
      onUpdate: (line) => lines.push(line),
    },
  ).then((out) => (settled = out));
  return {
    clock,
    /** The first line the command printed: the pid it echoed. */
    async pid(): Promise<number> {
      await waitFor(() => lines.length > 0, 'the command to print its pid');
      const pid = Number(lines[0]);
      expect(Number.isInteger(pid) && pid > 0, `no pid in ${JSON.stringify(lines)}`).toBe(true);
      leftovers.push(pid);
      return pid;
    },
    /** True once bash has exited and the tool waits for the output to drain (its timer is armed). */
    draining: () => clock.pending() >= 2,
    async result(): Promise<ToolOutput> {
      await waitFor(() => settled !== undefined, 'the bash call to return');
      return settled!;
    },
  };
}

describe('bash never hangs on a process that left the group', () => {
  it('returns once the shell exits and stops the setsid child holding the output', async () => {
    const call = start('setsid sleep 305 & echo $!', { timeout_ms: 5000 });
    const pid = await call.pid();
    await waitFor(call.draining, 'bash to exit');
    call.clock.advance(500);
    const out = await call.result();
    expect(out.isError).toBe(false);
    expect(out.content).toContain('background processes still held the output open and were stopped');
    await expectExited(pid);
  });

  it('escalates to SIGKILL for a setsid child that ignores SIGTERM', async () => {
    // The child says when its trap is set: a SIGTERM before that would kill it and prove nothing.
    const call = start(`setsid sh -c 'trap "" TERM; : > trapped; exec sleep 305' & echo $!`, { timeout_ms: 5000 });
    const pid = await call.pid();
    await waitFor(() => existsSync(path.join(dir.root, 'trapped')), 'the child to ignore SIGTERM');
    await waitFor(call.draining, 'bash to exit');
    call.clock.advance(500);
    // SIGTERM went out with the drain timer; the child ignores it until the escalation.
    expect(exited(pid)).toBe(false);
    call.clock.advance(1000);
    await call.result();
    await expectExited(pid);
  });

  it('stops reading and returns even when the child dropped everything that marks it', async () => {
    const call = start('env -i setsid sleep 305 & echo $!', { timeout_ms: 5000 });
    await call.pid();
    await waitFor(call.draining, 'bash to exit');
    call.clock.advance(500);
    call.clock.advance(2000);
    const out = await call.result();
    expect(out.isError).toBe(false);
    expect(out.content).toMatch(/left the command's process group .* outrider stopped reading its output/);
  });

  it('a timeout returns while the shell waits on a setsid child', async () => {
    const call = start('setsid sleep 305 & echo $!; wait', { timeout_ms: 5000 });
    const pid = await call.pid();
    call.clock.advance(5000);
    const out = await call.result();
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/\n\ntimed out after 5s$/);
    await expectExited(pid);
  });

  it('an abort returns too, even for a child the tool cannot find', async () => {
    const controller = new AbortController();
    const call = start('env -i setsid sleep 305 & echo $!; wait', { signal: controller.signal });
    await call.pid();
    controller.abort();
    call.clock.advance(2000);
    const out = await call.result();
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/interrupted/);
  });
});
