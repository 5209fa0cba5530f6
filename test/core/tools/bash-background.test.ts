import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobManager } from '../../../src/core/jobs/job-manager.js';
import { createBashTool } from '../../../src/core/tools/bash.js';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
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

  it("runs without the user's ~/.bashrc, though its stdin is a socket and SHLVL is unset (bash would take it for sshd's)", async () => {
    writeFileSync(path.join(dir.root, '.bashrc'), `echo sourced > '${path.join(dir.root, 'bashrc-ran')}'\n`);
    const env = { PATH: process.env.PATH ?? '', HOME: dir.root };
    const bash = createBashTool({ shells: host, env });
    await run(bash, { command: 'echo $$ > pid; echo done', run_in_background: true }, { workspace });
    await lastLine('sh-1', 'done');
    await until(() => manager.get('sh-1').state === 'done', { what: 'sh-1 to end', observe: () => manager.get('sh-1') });
    expect(existsSync(path.join(dir.root, 'bashrc-ran'))).toBe(false);
  });

  it("scrubs the session's key from what a shell prints before its row, its events or its last line see it", async () => {
    const events: unknown[] = [];
    const scrubbing = new JobManager({ run: () => Promise.reject(new Error('none')), emit: (event) => events.push(event) });
    const scrubHost: ShellHost = {
      adopt: (handle, start) => scrubbing.adoptShell(handle, start).id,
      foreground: new ForegroundCalls(),
    };
    try {
      const bash = createBashTool({ shells: scrubHost, scrub: (text) => text.replaceAll('sk-secret-123', '[redacted]') });
      await run(bash, { command: 'echo key=sk-secret-123; exit 0', run_in_background: true }, { workspace });
      await until(() => scrubbing.get('sh-1').state === 'done', { what: 'sh-1 to exit' });
      expect(scrubbing.get('sh-1').lastLine).toBe('key=[redacted]');
      expect(scrubbing.get('sh-1').result).toBe('key=[redacted]');
      // The command itself is the model's own text; what it printed is what must not leak.
      const printed = JSON.stringify(events.filter((event) => (event as { type: string }).type === 'job_event'));
      expect(printed).toContain('key=[redacted]');
      expect(printed).not.toContain('sk-secret-123');
    } finally {
      await scrubbing.close();
    }
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

describe("writing to a background shell's stdin (agent_send, real processes)", () => {
  const send = (id: string, text: string) => {
    try {
      const sent = manager.send(id, text);
      return sent.kind === 'stdin' ? `wrote, ${sent.pendingBytes} unread` : sent.kind;
    } catch (error) {
      return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
  };

  it('the process reads each message as a line; after it exits a message is refused', async () => {
    const bash = createBashTool({ shells: host });
    await run(
      bash,
      { command: 'while read -r line; do echo "got [$line]"; [ "$line" = bye ] && exit 0; done', run_in_background: true },
      { workspace },
    );
    expect(send('sh-1', ' two  words ')).toBe('wrote, 0 unread');
    await lastLine('sh-1', 'got [two  words]');
    expect(send('sh-1', 'bye')).toBe('wrote, 0 unread');
    await until(() => manager.get('sh-1').state === 'done', { what: 'sh-1 to exit' });
    expect(await poll('sh-1')).toBe('got [two  words]\ngot [bye]\n\n[sh-1 exited with code 0]');
    expect(send('sh-1', 'late')).toBe(
      'JobError: sh-1 exited with code 0: it reads no more input. Start a new shell with bash run_in_background.',
    );
  });

  it('a process that closed its stdin gets a clear refusal (EPIPE), and goes on running', async () => {
    const bash = createBashTool({ shells: host });
    await run(bash, { command: 'exec 0<&-; echo closed; sleep 300', run_in_background: true }, { workspace });
    await lastLine('sh-1', 'closed');
    const refusal =
      "JobError: sh-1's process closed its stdin: it reads no more input. Call agent_poll with id sh-1 for its output, or agent_stop to end it.";
    expect(send('sh-1', 'hello')).toBe(refusal);
    expect(send('sh-1', 'again')).toBe(refusal);
    expect(manager.get('sh-1').state).toBe('running');
  });

  it('a huge message is refused whole; a process that does not read gets what fits, then a refusal naming what it has not read', async () => {
    const bash = createBashTool({ shells: host });
    await run(bash, { command: 'echo $$ > pid; sleep 300', run_in_background: true }, { workspace });
    await pidIn('pid');
    expect(send('sh-1', 'x'.repeat(2 * 1024 * 1024))).toBe(
      "JobError: the message is 2097153 bytes, more than the 1048576 a shell's stdin may hold; nothing was written. Write it to a file and have the command read that file.",
    );
    // The pipe takes 64 KiB; the rest of the first message waits in outrider for the reader.
    const first = send('sh-1', 'y'.repeat(600_000));
    expect(first).toMatch(/^wrote, \d+ unread$/);
    const unread = Number(/(\d+) unread/.exec(first)![1]);
    expect(unread).toBeGreaterThan(400_000);
    expect(send('sh-1', 'z'.repeat(600_000))).toBe(
      `JobError: sh-1 has not read the ${unread} bytes written to it before; nothing was written (at most 1048576 bytes may wait). Call agent_poll with id sh-1 to see what it does.`,
    );
    manager.stop('sh-1');
    await until(() => manager.get('sh-1').state === 'aborted', { what: 'sh-1 to stop' });
  });

  it('messages sent while the process exits are either written or refused clearly, never thrown otherwise', async () => {
    const bash = createBashTool({ shells: host });
    await run(bash, { command: 'read -r line; echo "got $line"; exec 0<&-; exit 0', run_in_background: true }, { workspace });
    expect(send('sh-1', 'first')).toBe('wrote, 0 unread');
    const outcomes = new Set<string>();
    // Keep writing through the process's exit: each one is written, or refused with the shell's own words.
    await until(
      () => {
        outcomes.add(send('sh-1', 'more').replace(/sh-1.*$/, 'sh-1…'));
        return manager.get('sh-1').state === 'done';
      },
      { what: 'sh-1 to exit', observe: () => [...outcomes] },
    );
    expect(send('sh-1', 'after')).toMatch(/^JobError: sh-1 exited with code 0: it reads no more input/);
    for (const outcome of outcomes) expect(outcome).toMatch(/^(wrote, \d+ unread|JobError: sh-1…)$/);
  });

  it('a foreground call moved into the background has no stdin to write to', async () => {
    const bash = createBashTool({ shells: host });
    const lines: string[] = [];
    const call = run(bash, { command: 'echo started; sleep 300' }, { workspace, onUpdate: (line) => lines.push(line) });
    await until(() => lines.includes('started'), { what: 'the call to start' });
    expect(host.foreground.detach()).toEqual(['sh-1']);
    await call;
    expect(send('sh-1', 'hi')).toMatch(/^JobError: sh-1 has no stdin to write to: it was started in the foreground/);
    manager.stop('sh-1');
  });
});
