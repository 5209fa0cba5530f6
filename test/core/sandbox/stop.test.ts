import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxProbe } from '../../../src/core/sandbox/plan.js';
import { createBashTool } from '../../../src/core/tools/bash.js';
import type { ToolOutput, Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { executeTool } from '../../../src/core/tools/registry.js';
import { requireBwrap } from '../../support/bwrap.js';
import { FakeClock } from '../../support/fake-clock.js';
import { type TempDir, tempDir } from '../tools/harness.js';
import { until } from '../../support/until.js';

// A sandboxed command must stay as stoppable as a plain one: a timeout, an abort (Esc) and
// the end of the shell reach everything inside, even what ignores SIGTERM or left the group.
// The clock is fake; the processes are real, found by a tag in their command line.

let probe: Extract<SandboxProbe, { ok: true }>;
let dir: TempDir;
let workspace: Workspace;
beforeAll(async () => {
  const scratch = tempDir('outrider-probe-');
  try {
    probe = await requireBwrap(makeWorkspace(scratch.root));
  } finally {
    scratch.cleanup();
  }
});
beforeEach(() => {
  dir = tempDir('outrider-sandbox-stop-');
  workspace = makeWorkspace(dir.root);
});
afterEach(() => dir.cleanup());

/** `sleep` with a duration no other process uses, so the test can find its own. */
const tag = (): string => `305.${randomBytes(3).readUIntBE(0, 3)}`;

function running(tagged: string): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline === `sleep\0${tagged}\0` && state !== 'Z') return true;
    } catch {
      // gone
    }
  }
  return false;
}

/** The shared until(), as these tests call it. */
const waitFor = (condition: () => boolean, what: string) => until(condition, { what });

function start(command: string, options: { timeout_ms?: number; signal?: AbortSignal; sandbox?: 'read-only' } = {}) {
  const clock = new FakeClock();
  const tool = createBashTool({
    timers: clock,
    sandbox: { config: { mode: 'workspace-write', network: false }, probe: () => Promise.resolve(probe) },
  });
  let settled: ToolOutput | undefined;
  void executeTool(
    tool,
    { command, ...(options.timeout_ms ? { timeout_ms: options.timeout_ms } : {}) },
    {
      signal: options.signal ?? new AbortController().signal,
      workspace,
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    },
  ).then((out) => (settled = out));
  return {
    clock,
    async result(): Promise<ToolOutput> {
      await waitFor(() => settled !== undefined, 'the call to return');
      return settled!;
    },
  };
}

describe('stopping a sandboxed command', () => {
  it.each([
    ['read-only (auto-allowed)', 'read-only' as const],
    ['workspace-write (approved)', undefined],
  ])('%s: a timeout stops what ignores SIGTERM and what left the group', async (_name, sandbox) => {
    const [ignoring, detached] = [tag(), tag()];
    const call = start(`trap '' TERM; setsid sleep ${detached} & sleep ${ignoring} & wait`, { timeout_ms: 5000, sandbox });
    await waitFor(() => running(ignoring) && running(detached), 'both sleeps to start');
    call.clock.advance(5000);
    const out = await call.result();
    expect(out).toEqual({ content: '(no output)\n\ntimed out after 5s', isError: true });
    await waitFor(() => !running(ignoring) && !running(detached), 'both sleeps to be gone');
  });

  it('an abort stops it too', async () => {
    const sleeping = tag();
    const controller = new AbortController();
    const call = start(`sleep ${sleeping}`, { signal: controller.signal });
    await waitFor(() => running(sleeping), 'the sleep to start');
    controller.abort();
    const out = await call.result();
    expect(out).toMatchObject({ isError: true });
    expect(out.content).toMatch(/interrupted$/);
    await waitFor(() => !running(sleeping), 'the sleep to be gone');
  });

  it('nothing outlives the shell: a setsid child ends with it, and the call returns at once', async () => {
    const detached = tag();
    const call = start(`setsid sleep ${detached} & echo started`, { timeout_ms: 5000 });
    // No timer is advanced: the pid namespace ends with bash, so the pipe closes by itself.
    const out = await call.result();
    expect(out).toEqual({ content: 'started', isError: false });
    expect(running(detached)).toBe(false);
  });
});
