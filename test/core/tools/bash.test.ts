import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BASH_OUTPUT_CAP, bashTool } from '../../../src/core/tools/bash.js';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/tools/paths.js';
import { type TempDir, run, tempDir } from './harness.js';
import { expectExited } from '../../support/process.js';

let dir: TempDir;
let workspace: Workspace;
beforeEach(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
});
afterEach(() => dir.cleanup());

const bash = (input: unknown, options: { signal?: AbortSignal; onUpdate?: (t: string) => void } = {}) =>
  run(bashTool, input, { workspace, ...options });

function firstPid(output: string): number {
  const pid = Number(output.split('\n')[0]);
  expect(Number.isInteger(pid) && pid > 0, `no pid in ${JSON.stringify(output)}`).toBe(true);
  return pid;
}

describe('bash', () => {
  it('returns stdout and stderr in the order they arrived', async () => {
    const out = await bash({ command: 'echo one; sleep 0.05; echo two >&2; sleep 0.05; echo three' });
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
    await bash({ command: 'echo first; sleep 0.1; printf "second\\nthird"' }, { onUpdate: (t) => updates.push(t) });
    expect(updates).toEqual(['first', 'second', 'third']);
  });

  it('kills the whole process group on timeout', async () => {
    const started = Date.now();
    const out = await bash({ command: 'sleep 30 & echo $!; wait', timeout_ms: 400 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/\n\ntimed out after 0\.4s$/);
    await expectExited(firstPid(out.content));
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const out = await bash({ command: "trap '' TERM; sleep 30 & echo $!; wait", timeout_ms: 300 });
    expect(out.content).toContain('timed out after 0.3s');
    await expectExited(firstPid(out.content));
  });

  it('kills the whole process group when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = bash({ command: 'sleep 30 & echo $!; wait' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
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
    const started = Date.now();
    const out = await bash({ command: 'sleep 30 & echo $!' });
    expect(Date.now() - started).toBeLessThan(5_000);
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
