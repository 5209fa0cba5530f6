import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobManager } from '../../../src/core/agents/job-manager.js';
import { createBashTool } from '../../../src/core/tools/bash.js';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/tools/paths.js';
import { ForegroundCalls, type ShellHost } from '../../../src/core/tools/shell-host.js';
import { type TempDir, run, tempDir } from './harness.js';
import { expectExited } from '../../support/process.js';
import { until } from '../../support/until.js';

let dir: TempDir;
let workspace: Workspace;
let manager: JobManager;
let host: ShellHost;
beforeEach(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
  manager = new JobManager({
    run: () => Promise.reject(new Error('no sub-agents in these tests')),
  });
  host = { adopt: (handle, start) => manager.adoptShell(handle, start).id, foreground: new ForegroundCalls() };
});
afterEach(async () => {
  await manager.close();
  dir.cleanup();
});

const never = new AbortController().signal;
const pidIn = (name: string) =>
  until(() => Number(readFileSync(path.join(dir.root, name), 'utf8')) || undefined, { what: `${name}` });
const lastLine = (id: string, line: string) =>
  until(() => manager.get(id).lastLine === line, { what: `${id} to print ${line}`, observe: () => manager.get(id) });
const poll = async (id: string) => manager.describePoll(await manager.poll(id, never)).content;

describe('bash run_in_background (real processes)', () => {
  it('starts a shell job, polled twice for its new output, then stopped with its whole process group', async () => {
    const bash = createBashTool({ shells: host });
    const command = 'echo $$ > pid; echo one; until [ -e go ]; do sleep 0.02; done; echo two; sleep 300 & echo $! > child; wait';
    const started = await run(bash, { command, run_in_background: true }, { workspace });
    expect(started.content).toMatch(/^Started background shell sh-1\. Call agent_poll with id sh-1/);
    const shellPid = await pidIn('pid');
    await lastLine('sh-1', 'one');
    expect(await poll('sh-1')).toMatch(/^one\n\n\[sh-1 still running after/);
    writeFileSync(path.join(dir.root, 'go'), '');
    await lastLine('sh-1', 'two');
    const childPid = await pidIn('child');
    expect(await poll('sh-1')).toMatch(/^two\n\n\[sh-1 still running/);
    expect(manager.stop('sh-1').state).toBe('aborted');
    await expectExited(shellPid);
    await expectExited(childPid);
    expect(await poll('sh-1')).toBe('(no new output)\n\n[sh-1 was stopped]');
  });

  it('ends with its exit code once the command exits by itself', async () => {
    const bash = createBashTool({ shells: host });
    await run(bash, { command: 'echo bye; exit 3', run_in_background: true }, { workspace });
    await until(() => manager.get('sh-1').state === 'error', { what: 'sh-1 to exit' });
    expect(manager.get('sh-1')).toMatchObject({ exitCode: 3, error: 'exit code 3' });
    expect(await poll('sh-1')).toBe('bye\n\n[sh-1 exit code 3]');
    expect(manager.boundaryMessages()).toEqual([]);
  });

  it('a parent turn interrupted after the start does not stop the shell', async () => {
    const bash = createBashTool({ shells: host });
    const controller = new AbortController();
    await run(bash, { command: 'echo $$ > pid; sleep 300', run_in_background: true }, { workspace, signal: controller.signal });
    const pid = await pidIn('pid');
    controller.abort();
    expect(manager.get('sh-1').state).toBe('running');
    manager.stop('sh-1');
    await expectExited(pid);
  });

  it('a stop reaches a process that left the group (setsid), and the session closing stops a shell still running', async () => {
    const bash = createBashTool({ shells: host });
    await run(bash, { command: 'setsid sleep 300 & echo $! > escaped; sleep 300', run_in_background: true }, { workspace });
    await run(bash, { command: 'echo $$ > other; sleep 300', run_in_background: true }, { workspace });
    const escaped = await pidIn('escaped');
    const other = await pidIn('other');
    manager.stop('sh-1');
    await expectExited(escaped);
    await manager.close();
    await expectExited(other);
    expect(manager.get('sh-2').state).toBe('aborted');
  });

  it('a poll interrupted by its turn says so and keeps the output for the next poll', async () => {
    const bash = createBashTool({ shells: host });
    await run(bash, { command: 'until [ -e go ]; do sleep 0.02; done; echo late', run_in_background: true }, { workspace });
    const controller = new AbortController();
    const waiting = manager.poll('sh-1', controller.signal);
    controller.abort();
    expect(manager.describePoll(await waiting)).toEqual({ content: 'poll interrupted', isError: true });
    writeFileSync(path.join(dir.root, 'go'), '');
    await until(() => manager.get('sh-1').state === 'done', { what: 'sh-1 to finish' });
    expect(await poll('sh-1')).toBe('late\n\n[sh-1 exited with code 0]');
  });

  it('is refused where no job manager takes shells', async () => {
    const out = await run(createBashTool(), { command: 'echo x', run_in_background: true }, { workspace });
    expect(out).toEqual({ content: expect.stringMatching(/background shells are not available here/), isError: true });
  });

  it('a foreground call moved into the background returns its output so far; the job gets the rest', async () => {
    const bash = createBashTool({ shells: host });
    const lines: string[] = [];
    const call = run(
      bash,
      { command: 'echo $$ > pid; echo before; until [ -e go ]; do sleep 0.02; done; echo after' },
      {
        workspace,
        onUpdate: (line) => lines.push(line),
      },
    );
    await until(() => lines.includes('before'), { what: 'the call to print before' });
    expect(host.foreground.running().map((c) => c.command)).toEqual([expect.stringContaining('echo before')]);
    expect(host.foreground.detach()).toEqual(['sh-1']);
    const result = await call;
    expect(result.content).toMatch(/^before\n\nmoved to background as sh-1: it keeps running\./);
    expect(host.foreground.running()).toEqual([]);
    writeFileSync(path.join(dir.root, 'go'), '');
    await until(() => manager.get('sh-1').state === 'done', { what: 'sh-1 to finish' });
    expect(await poll('sh-1')).toBe('after\n\n[sh-1 exited with code 0]');
    expect(lines).not.toContain('after');
  });

  it('a call that already finished is not moved', async () => {
    const bash = createBashTool({ shells: host });
    await run(bash, { command: 'echo quick' }, { workspace });
    expect(host.foreground.detach()).toEqual([]);
    expect(manager.list()).toEqual([]);
  });
});
