import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BASH_OUTPUT_CAP, bashTool, createBashTool } from '../../../src/core/tools/bash.js';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { type TempDir, run, tempDir } from './harness.js';
import { FakeClock } from '../../support/fake-clock.js';
import { exited, expectExited } from '../../support/process.js';
import { until } from '../../support/until.js';

let dir: TempDir;
let workspace: Workspace;
let clock: FakeClock;
beforeEach(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
  clock = new FakeClock();
});
afterEach(() => dir.cleanup());

type BashOptions = { signal?: AbortSignal; onUpdate?: (t: string) => void };
const bash = (input: unknown, options: BashOptions = {}) => run(bashTool, input, { workspace, ...options });
/** bash on the fake clock: its timeout, drain wait and SIGKILL escalation fire only on `clock.advance`. */
const clockedBash = (input: unknown, options: BashOptions = {}) =>
  run(createBashTool({ timers: clock }), input, { workspace, ...options });

/**
 * A handshake between the command and the test: the shell waits (polling for a file) until
 * the test has seen `line` through onUpdate, so output order never depends on scheduling.
 */
const afterSeen = (line: string) => `until [ -e seen-${line} ]; do sleep 0.01; done`;
const markSeen = (line: string) => writeFileSync(path.join(dir.root, `seen-${line}`), '');

/** onUpdate that resolves `first` with the first line (the tests' commands echo a pid first). */
function firstLine(): { onUpdate: (line: string) => void; first: Promise<string> } {
  let resolve: (line: string) => void = () => {};
  const first = new Promise<string>((r) => (resolve = r));
  return { onUpdate: (line) => resolve(line), first };
}

function firstPid(output: string): number {
  const pid = Number(output.split('\n')[0]);
  expect(Number.isInteger(pid) && pid > 0, `no pid in ${JSON.stringify(output)}`).toBe(true);
  return pid;
}

describe('bash', () => {
  it('returns stdout and stderr in the order they arrived', async () => {
    const out = await bash(
      { command: `echo one; ${afterSeen('one')}; echo two >&2; ${afterSeen('two')}; echo three`, timeout_ms: 10_000 },
      { onUpdate: markSeen },
    );
    expect(out).toEqual({ content: 'one\ntwo\nthree', isError: false });
  });

  it('runs in the workspace root with stdin closed', async () => {
    expect((await bash({ command: 'pwd' })).content).toBe(dir.root);
    expect((await bash({ command: 'cat; echo done' })).content).toBe('done');
  });

  it('states a non-zero exit code without flagging an error', async () => {
    const out = await bash({ command: 'echo failing >&2; exit 3' });
    expect(out).toEqual({ content: 'failing\n\nexit code 3', isError: false });
  });

  it('says when there was no output', async () => {
    expect((await bash({ command: 'true' })).content).toBe('(no output)');
  });

  it('keeps the head and tail of very long output', async () => {
    const out = await bash({ command: 'seq 1 300000' });
    expect(out.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(out.content.endsWith('299999\n300000')).toBe(true);
    expect(out.content).toMatch(/\[\d+ characters cut from the middle of the output\]/);
    expect(out.content.length).toBeLessThan(BASH_OUTPUT_CAP + 200);
  });

  it('keeps output below the cap whole, for the session to hand off', async () => {
    const out = await bash({ command: 'seq 1 20000' });
    expect(out.content).toBe(Array.from({ length: 20000 }, (_, i) => i + 1).join('\n'));
  });

  it('passes output lines to onUpdate as they arrive', async () => {
    const updates: string[] = [];
    // The command goes on only once 'first' has reached onUpdate, so it arrived before the end.
    const onUpdate = (line: string) => {
      updates.push(line);
      markSeen(line);
    };
    await bash({ command: `echo first; ${afterSeen('first')}; printf "second\\nthird"`, timeout_ms: 10_000 }, { onUpdate });
    expect(updates).toEqual(['first', 'second', 'third']);
  });

  // `sleep 300`: a group left running would outlast any test deadline, so each test passes
  // only if the tool stopped it.
  it('kills the whole process group on timeout', async () => {
    const { onUpdate, first } = firstLine();
    const pending = clockedBash({ command: 'sleep 300 & echo $!; wait', timeout_ms: 400 }, { onUpdate });
    await first;
    clock.advance(400);
    const out = await pending;
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/\n\ntimed out after 0\.4s$/);
    await expectExited(firstPid(out.content));
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const { onUpdate, first } = firstLine();
    const pending = clockedBash({ command: "trap '' TERM; sleep 300 & echo $!; wait", timeout_ms: 300 }, { onUpdate });
    const pid = Number(await first);
    clock.advance(300);
    // SIGTERM was sent and ignored; the group is looked at until the grace runs out, and no SIGKILL comes before.
    clock.advance(999);
    expect(exited(pid)).toBe(false);
    clock.advance(1);
    const out = await pending;
    expect(out.content).toContain('timed out after 0.3s');
    await expectExited(firstPid(out.content));
  });

  it('kills the whole process group when the signal aborts', async () => {
    const controller = new AbortController();
    const { onUpdate, first } = firstLine();
    const pending = bash({ command: 'sleep 300 & echo $!; wait' }, { signal: controller.signal, onUpdate });
    await first;
    controller.abort();
    const out = await pending;
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/\n\ninterrupted$/);
    await expectExited(firstPid(out.content));
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const marker = path.join(dir.root, 'ran');
    const out = await bash({ command: `touch ${marker}` }, { signal: controller.signal });
    expect(out).toEqual({ content: 'bash was interrupted', isError: true });
    expect(() => readFileSync(marker)).toThrow();
  });

  it('stops a background child that holds the output open after bash exits', async () => {
    const pending = clockedBash({ command: 'sleep 300 & echo $!' });
    // bash has exited once the drain wait is scheduled beside the 120 s timeout.
    await until(() => clock.pending() === 2, { what: 'bash to exit with its output held open', observe: () => clock.pending() });
    expect(clock.nextAt()).toBe(500);
    clock.advance(500);
    const out = await pending;
    expect(out.isError).toBe(false);
    expect(out.content).toContain('background processes still held the output open and were stopped');
    await expectExited(firstPid(out.content));
  });

  it('reports a spawn failure as an error', async () => {
    const gone = makeWorkspace(path.join(dir.root, 'missing-dir'));
    const out = await run(bashTool, { command: 'echo hi' }, { workspace: gone });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/^bash could not be started: .*ENOENT/);
  });

  it('bounds timeout_ms and labels the call with the first line', async () => {
    await expect(bash({ command: 'true', timeout_ms: 600_001 })).rejects.toThrow(/timeout_ms/);
    expect(bashTool.label?.({ command: '  npm test\n  echo done' })).toBe('npm test');
    expect(bashTool.kind).toBe('mutating');
  });
});
