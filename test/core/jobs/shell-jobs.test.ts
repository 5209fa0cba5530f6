import { describe, expect, it } from 'vitest';
import {
  type ChildOutcome,
  type ChildRunRequest,
  type Job,
  JobError,
  JobManager,
  type StoredJob,
} from '../../../src/core/jobs/job-manager.js';
import { SHELL_POLL_WAIT_MS } from '../../../src/core/jobs/shell-job.js';
import { SHELL_UNREAD_CAP } from '../../../src/core/jobs/shell-output.js';
import type { JobEvent } from '../../../src/core/jobs/job-types.js';
import type { Message } from '../../../src/core/providers/types.js';
import { FakeClock, settle } from '../../support/fake-clock.js';
import { fakeShell } from '../../support/fake-shell.js';

function setup(options: { maxDepth?: number } = {}) {
  const clock = new FakeClock();
  const events: JobEvent[] = [];
  const runs = new Map<string, { request: ChildRunRequest; finish: (o: ChildOutcome) => void }>();
  const manager = new JobManager({
    now: clock.now,
    timers: clock,
    emit: (e) => events.push(e),
    pollTimeoutMs: 600_000,
    ...options,
    run: (request) =>
      new Promise<ChildOutcome>((resolve) => {
        runs.set(request.id, { request, finish: resolve });
        request.signal.addEventListener('abort', () => resolve({ status: 'done', text: 'stopped', messages: [] }));
      }),
  });
  const boundary = (owner?: string): string[] => {
    const messages = manager.boundaryMessages(owner);
    for (const m of messages) manager.confirm(m);
    return messages.map(textOf);
  };
  return { manager, clock, events, runs, boundary };
}

const textOf = (m: Message) => (m.content[0] as { text: string }).text;
const never = new AbortController().signal;

describe('background shells in the job manager', () => {
  it('numbers shells sh-1, sh-2 apart from sub-agents, running at once without a queue slot, listed after them', () => {
    const { manager } = setup();
    manager.start('look around');
    const first = manager.adoptShell(fakeShell().handle, { command: 'npm run dev' });
    const second = manager.adoptShell(fakeShell().handle, { command: 'npm test' });
    expect([first.id, first.state, first.kind, first.task]).toEqual(['sh-1', 'running', 'shell', 'npm run dev']);
    expect(second.id).toBe('sh-2');
    expect(manager.list().map((j) => j.id)).toEqual(['sub-1', 'sh-1', 'sh-2']);
  });

  it('a poll returns what was printed since the previous poll, at once when there is some', async () => {
    const { manager } = setup();
    const shell = fakeShell();
    manager.adoptShell(shell.handle, { command: 'build' });
    shell.print('one\n');
    shell.print('two\n');
    const first = manager.describePoll(await manager.poll('sh-1', never));
    expect(first.content).toMatch(/^one\ntwo\n\n\[sh-1 still running after 0s; poll again/);
    shell.print('three\n');
    const second = manager.describePoll(await manager.poll('sh-1', never));
    expect(second.content.split('\n\n')[0]).toBe('three');
  });

  it('a poll with nothing new waits for the next output, or 30 s, and says there was none', async () => {
    const { manager, clock } = setup();
    const shell = fakeShell();
    manager.adoptShell(shell.handle, { command: 'watch' });
    let result: string | undefined;
    void manager.poll('sh-1', never).then((r) => (result = manager.describePoll(r).content));
    await settle();
    expect(result).toBeUndefined();
    shell.print('tick\n');
    await settle();
    expect(result?.split('\n\n')[0]).toBe('tick');

    result = undefined;
    void manager.poll('sh-1', never).then((r) => (result = manager.describePoll(r).content));
    clock.advance(SHELL_POLL_WAIT_MS - 1);
    await settle();
    expect(result).toBeUndefined();
    clock.advance(1);
    await settle();
    expect(result).toMatch(/^\(no new output\)\n\n\[sh-1 still running after 30s/);
  });

  it('its end is announced at a boundary with its exit code, and the poll returns the rest of its output', async () => {
    const { manager, boundary, events } = setup();
    const shell = fakeShell();
    manager.adoptShell(shell.handle, { command: 'npm test' });
    shell.print('FAIL one test\n');
    shell.exit(1);
    await settle();
    const job = manager.get('sh-1');
    expect([job.state, job.exitCode, job.error, job.lastLine]).toEqual(['error', 1, 'exit code 1', 'FAIL one test']);
    expect(boundary()).toEqual(['Background shell sh-1 exited. Call agent_poll with id sh-1 for its output and exit code.']);
    expect(boundary()).toEqual([]);
    const poll = manager.describePoll(await manager.poll('sh-1', never));
    expect(poll).toEqual({ content: 'FAIL one test\n\n[sh-1 exit code 1]', isError: false });
    expect(() => manager.stop('sh-1')).toThrow(new JobError('shell sh-1 already exited (exit code 1)'));
    // The notice delivered it; the poll does not deliver it again.
    expect(events.filter((e) => e.type === 'job_delivered')).toEqual([
      { type: 'job_delivered', jobIds: ['sh-1'], via: 'notice' },
    ]);
  });

  it('a poll that returns the end delivers it: no notice follows', async () => {
    const { manager, boundary } = setup();
    const shell = fakeShell();
    manager.adoptShell(shell.handle, { command: 'make' });
    const poll = manager.poll('sh-1', never);
    shell.exit(0);
    expect(manager.describePoll(await poll).content).toBe('(no new output)\n\n[sh-1 exited with code 0]');
    expect(boundary()).toEqual([]);
    expect(manager.undelivered()).toEqual([]);
  });

  it('one notice names sub-agents and shells that ended together', async () => {
    const { manager, runs, boundary } = setup();
    manager.start('task');
    await settle();
    const shell = fakeShell();
    manager.adoptShell(shell.handle, { command: 'make' });
    shell.exit(0);
    runs.get('sub-1')!.finish({ status: 'done', text: 'ok' });
    await settle();
    expect(boundary()).toEqual(['Jobs sub-1, sh-1 completed. Call agent_poll for each result.']);
  });

  it('agent_stop stops its process group: stopped, never announced; a second stop says it was already stopped', async () => {
    const { manager, boundary } = setup();
    const shell = fakeShell();
    manager.adoptShell(shell.handle, { command: 'sleep 300' });
    expect(manager.stop('sh-1').state).toBe('aborted');
    expect(shell.stops).toEqual(['abort']);
    await settle();
    expect(manager.get('sh-1').state).toBe('aborted');
    expect(boundary()).toEqual([]);
    expect(() => manager.stop('sh-1')).toThrow(new JobError('shell sh-1 was already stopped'));
  });

  it('refuses a new shell while closing', async () => {
    const { manager } = setup();
    await manager.close();
    expect(() => manager.adoptShell(fakeShell().handle, { command: 'x' })).toThrow(/session is closing/);
  });

  it('agent_send writes the message and a newline to its stdin, as written (not trimmed)', () => {
    const { manager, events } = setup();
    const shell = fakeShell();
    manager.adoptShell(shell.handle, { command: 'python3 -i' });
    const before = events.length;
    expect(manager.send('sh-1', 'print(1)')).toEqual({ kind: 'stdin', job: manager.get('sh-1'), pendingBytes: 0 });
    expect(manager.send('sh-1', '  indented ', 'user').kind).toBe('stdin');
    expect(shell.writes).toEqual(['print(1)\n', '  indented \n']);
    // A write changes nothing a front end shows.
    expect(events.length).toBe(before);
  });

  it('says how much of a message the process has not read yet, and refuses more past the cap', () => {
    const { manager } = setup();
    const shell = fakeShell();
    manager.adoptShell(shell.handle, { command: 'slow-reader' });
    shell.answerWrites(() => ({ kind: 'pending', bytes: 70_000 }));
    expect(manager.send('sh-1', 'x'.repeat(100_000))).toMatchObject({ kind: 'stdin', pendingBytes: 70_000 });
    shell.answerWrites((text) => ({ kind: 'refused', reason: 'full', pending: 70_000, bytes: text.length }));
    expect(() => manager.send('sh-1', 'more')).toThrow(
      new JobError(
        'sh-1 has not read the 70000 bytes written to it before; nothing was written (at most 1048576 bytes may wait). Call agent_poll with id sh-1 to see what it does.',
      ),
    );
    shell.answerWrites((text) => ({ kind: 'refused', reason: 'full', pending: 0, bytes: text.length }));
    expect(() => manager.send('sh-1', 'y'.repeat(2_000_000))).toThrow(/^the message is 2000001 bytes, more than the 1048576/);
  });

  it('refuses a message to a shell that ended, was stopped, is exiting, closed its stdin, or has none', async () => {
    const { manager } = setup();
    const done = fakeShell();
    manager.adoptShell(done.handle, { command: 'true' });
    done.exit(0);
    await settle();
    expect(() => manager.send('sh-1', 'hi')).toThrow(
      new JobError('sh-1 exited with code 0: it reads no more input. Start a new shell with bash run_in_background.'),
    );
    const failed = fakeShell();
    manager.adoptShell(failed.handle, { command: 'false' });
    failed.exit(2);
    await settle();
    expect(() => manager.send('sh-2', 'hi')).toThrow(/^sh-2 ended \(exit code 2\): it reads no more input/);
    manager.adoptShell(fakeShell().handle, { command: 'sleep 9' });
    manager.stop('sh-3');
    expect(() => manager.send('sh-3', 'hi')).toThrow(/^sh-3 was stopped: it reads no more input/);

    // Exited, its end not yet seen by the manager: the process is gone, and the write says so.
    const exiting = fakeShell();
    manager.adoptShell(exiting.handle, { command: 'exit 0' });
    exiting.exit(0);
    expect(manager.get('sh-4').state).toBe('running');
    expect(() => manager.send('sh-4', 'hi')).toThrow(
      new JobError(
        "sh-4's process has exited: it reads no more input. Call agent_poll with id sh-4 for its output and exit code.",
      ),
    );

    const closed = fakeShell();
    manager.adoptShell(closed.handle, { command: 'exec 0<&-; sleep 9' });
    closed.closeInput();
    expect(() => manager.send('sh-5', 'hi')).toThrow(
      /^sh-5's process closed its stdin: it reads no more input\. Call agent_poll/,
    );

    // Moved from the foreground, where commands get no stdin.
    manager.adoptShell(fakeShell({ input: false }).handle, { command: 'make' });
    expect(() => manager.send('sh-6', 'hi')).toThrow(/^sh-6 has no stdin to write to: it was started in the foreground/);
    expect(
      manager
        .list()
        .filter((j) => j.state === 'running')
        .map((j) => j.id),
    ).toEqual(['sh-4', 'sh-5', 'sh-6']);
  });

  it('keeps the head and tail of a flood between two polls', async () => {
    const { manager } = setup();
    const shell = fakeShell();
    manager.adoptShell(shell.handle, { command: 'yes' });
    const line = `${'y'.repeat(999)}\n`;
    for (let i = 0; i < (SHELL_UNREAD_CAP / 1000) * 3; i += 1) shell.print(line);
    const content = manager.describePoll(await manager.poll('sh-1', never)).content;
    expect(content.length).toBeLessThan(SHELL_UNREAD_CAP + 200);
    expect(content).toMatch(/characters cut from the middle of the output/);
  });

  it("emits its lines as the row's activity, and stops emitting once it ended", async () => {
    const { manager, events } = setup();
    const shell = fakeShell();
    manager.adoptShell(shell.handle, { command: 'build' });
    shell.print('compiling a\ncompil');
    shell.print('ing b\n');
    manager.stop('sh-1');
    shell.print('late\n');
    const lines = events.flatMap((e) => (e.type === 'job_event' && e.event.type === 'tool_update' ? [e.event.text] : []));
    expect(lines).toEqual(['compiling a', 'compiling b']);
  });

  it("a sub-agent's shell is announced to that sub-agent, not the parent, and stopped when its run ends", async () => {
    const { manager, runs, boundary } = setup();
    manager.start('owner');
    await settle();
    const mine = fakeShell();
    const later = fakeShell();
    manager.adoptShell(mine.handle, { command: 'quick', owner: 'sub-1' });
    manager.adoptShell(later.handle, { command: 'server', owner: 'sub-1' });
    expect(manager.get('sh-1').owner).toBe('sub-1');
    mine.exit(0);
    await settle();
    expect(boundary()).toEqual([]);
    const inbox = runs.get('sub-1')!.request.takeInbox!();
    expect(inbox.map(textOf)).toEqual([
      'Background shell sh-1 exited. Call agent_poll with id sh-1 for its output and exit code.',
    ]);
    runs.get('sub-1')!.request.onMessage!(inbox[0]!);
    runs.get('sub-1')!.finish({ status: 'done', text: 'report' });
    await settle();
    expect(later.stops).toEqual(['abort']);
    expect(manager.get('sh-2').state).toBe('aborted');
    expect(boundary()).toEqual(['Sub-agent sub-1 completed. Call agent_poll with id sub-1 for its summary.']);
    expect(manager.undelivered()).toEqual([]);
  });

  it('headless waiting (idle) waits for sub-agents, not for a server that runs until stopped', async () => {
    const { manager } = setup();
    manager.adoptShell(fakeShell().handle, { command: 'npm run dev' });
    let idle = false;
    void manager.idle().then(() => (idle = true));
    await settle();
    expect(idle).toBe(true);
  });
});

describe('nesting (agents.maxAgentDepth)', () => {
  it('refuses a sub-agent started by a sub-agent at the default depth of 1', async () => {
    const { manager } = setup();
    manager.start('top');
    expect(() => manager.start('nested', { owner: 'sub-1' })).toThrow(/may nest 1 level\(s\) deep here.*agents\.maxAgentDepth/);
  });

  it('gives nested jobs ids under their owner, lists them as a tree, and refuses one level too many', async () => {
    const { manager } = setup({ maxDepth: 2 });
    manager.start('one');
    manager.start('two');
    const nested = manager.start('under two', { owner: 'sub-2' });
    manager.start('also under two', { owner: '2' });
    manager.start('three');
    expect([nested.id, nested.owner, nested.depth]).toEqual(['sub-2.1', 'sub-2', 2]);
    expect(manager.list().map((j) => j.id)).toEqual(['sub-1', 'sub-2', 'sub-2.1', 'sub-2.2', 'sub-3']);
    expect(() => manager.start('too deep', { owner: 'sub-2.1' })).toThrow(/may nest 2 level/);
    expect(manager.get('2.1').id).toBe('sub-2.1');
  });

  it("tells a nested job its depth, and its completion goes to its owner at the owner's next step", async () => {
    const { manager, runs, boundary } = setup({ maxDepth: 2 });
    manager.start('owner');
    await settle();
    manager.start('helper', { owner: 'sub-1' });
    await settle();
    expect(runs.get('sub-1.1')!.request.depth).toBe(2);
    runs.get('sub-1.1')!.finish({ status: 'done', text: 'helped' });
    await settle();
    expect(boundary()).toEqual([]);
    expect(manager.undelivered()).toEqual([]);
    expect(manager.undelivered('sub-1')).toEqual(['sub-1.1']);
    const inbox = runs.get('sub-1')!.request.takeInbox!();
    expect(inbox.map(textOf)).toEqual(['Sub-agent sub-1.1 completed. Call agent_poll with id sub-1.1 for its summary.']);
    runs.get('sub-1')!.request.onMessage!(inbox[0]!);
    expect(manager.undelivered('sub-1')).toEqual([]);
  });

  it('stopping a job stops its subtree first, deepest first, and its shells', async () => {
    const { manager, events } = setup({ maxDepth: 3 });
    manager.start('top');
    await settle();
    manager.start('middle', { owner: 'sub-1' });
    await settle();
    manager.start('bottom', { owner: 'sub-1.1' });
    const shell = fakeShell();
    manager.adoptShell(shell.handle, { command: 'serve', owner: 'sub-1.1' });
    await settle();
    manager.stop('sub-1');
    const order = events.flatMap((e) => (e.type === 'job_state' && e.job.state === 'aborted' ? [e.job.id] : []));
    expect(order).toEqual(['sh-1', 'sub-1.1.1', 'sub-1.1', 'sub-1']);
    expect(shell.stops).toEqual(['abort']);
    expect(manager.active()).toEqual([]);
  });

  it('a job that finishes stops the jobs it started; their results are owed to nobody', async () => {
    const { manager, runs, boundary } = setup({ maxDepth: 2 });
    manager.start('owner');
    await settle();
    manager.start('still running', { owner: 'sub-1' });
    manager.start('done early', { owner: 'sub-1' });
    await settle();
    runs.get('sub-1.2')!.finish({ status: 'done', text: 'early' });
    await settle();
    runs.get('sub-1')!.finish({ status: 'done', text: 'report' });
    await settle();
    expect(manager.get('sub-1.1').state).toBe('aborted');
    expect(manager.undelivered('sub-1')).toEqual([]);
    expect(boundary()).toEqual(['Sub-agent sub-1 completed. Call agent_poll with id sub-1 for its summary.']);
  });
});

describe("an earlier run's shells and nested jobs (restore)", () => {
  const stored = (id: string, extra: Partial<Job> = {}): StoredJob => ({
    job: {
      id,
      number: Number(/(\d+)$/.exec(id)![1]),
      state: 'done',
      definition: 'explore',
      mode: 'typed',
      task: `task of ${id}`,
      createdAt: 0,
      turns: 1,
      toolCalls: 0,
      contextTokens: 0,
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
      result: `report of ${id}`,
      ...extra,
    },
    messages: id.startsWith('sh-')
      ? []
      : [
          { role: 'user', content: [{ type: 'text', text: `Task:\ntask of ${id}` }] },
          { role: 'assistant', content: [{ type: 'text', text: `report of ${id}` }] },
        ],
  });
  const shell = (id: string, extra: Partial<Job> = {}) =>
    stored(id, { kind: 'shell', definition: 'shell', task: 'npm test', exitCode: 0, lastLine: 'ok', ...extra });

  it('lists them in tree order, owed to nobody, and numbers new shells and nested jobs after them', () => {
    const { manager } = setup({ maxDepth: 2 });
    manager.restore(
      [
        stored('sub-2'),
        stored('sub-2.1', { owner: 'sub-2', depth: 2 }),
        stored('sub-2.3', { owner: 'sub-2', depth: 2 }),
        shell('sh-1'),
        shell('sh-3', { state: 'aborted' }),
      ],
      // Files it could not read back: their numbers are taken all the same.
      { takenIds: ['sub-4', 'sub-2.4', 'sh-5'] },
    );
    expect(manager.list().map((j) => `${j.id}:${j.state}`)).toEqual([
      'sub-2:done',
      'sub-2.1:done',
      'sub-2.3:done',
      'sh-1:done',
      'sh-3:aborted',
    ]);
    expect(manager.undelivered()).toEqual([]);
    expect(manager.undelivered('sub-2')).toEqual([]);
    expect(manager.adoptShell(fakeShell().handle, { command: 'again' }).id).toBe('sh-6');
    expect(manager.start('top').id).toBe('sub-5');
    expect(manager.start('nested', { owner: 'sub-2' }).id).toBe('sub-2.5');
    expect(manager.start('first of its own', { owner: 'sub-5' }).id).toBe('sub-5.1');
  });

  it('a shell from before cannot be resumed: a message, a stop and a poll say where it stands', async () => {
    const { manager } = setup();
    manager.restore([shell('sh-1'), shell('sh-2', { state: 'error', error: 'the session ended while this shell ran' })]);
    expect(() => manager.send('sh-1', 'hello')).toThrow(
      new JobError(
        'sh-1 is from an earlier run of this session and exited with code 0; a shell cannot be resumed. Run the command again with bash run_in_background.',
      ),
    );
    expect(() => manager.send('sh-2', 'hello')).toThrow(
      /^sh-2 is from an earlier run of this session and ended \(the session ended while this shell ran\); a shell cannot be resumed/,
    );
    expect(() => manager.stop('sh-1')).toThrow(new JobError('shell sh-1 already exited (exit code 0)'));
    expect(manager.describePoll(await manager.poll('sh-1', never))).toEqual({
      content: '(no new output)\n\n[sh-1 exited with code 0]',
      isError: false,
    });
  });

  it('a nested job from before resumes with its history under its own id and depth', async () => {
    const { manager, runs } = setup({ maxDepth: 2 });
    manager.restore([stored('sub-1'), stored('sub-1.1', { owner: 'sub-1', depth: 2 })]);
    expect(manager.send('1.1', 'and the tests?')).toMatchObject({ kind: 'resumed', job: { id: 'sub-1.1', state: 'queued' } });
    await settle();
    const { request } = runs.get('sub-1.1')!;
    expect(request.depth).toBe(2);
    expect(request.resume!.map(textOf)).toEqual([
      'Task:\ntask of sub-1.1',
      'report of sub-1.1',
      'Message from the parent agent:\nand the tests?',
    ]);
  });

  it('a nested job resumed after its owner ended is announced to the parent, whose owner cannot hear it', async () => {
    const { manager, runs, boundary } = setup({ maxDepth: 2 });
    manager.restore([stored('sub-1'), stored('sub-1.1', { owner: 'sub-1', depth: 2 })]);
    manager.send('sub-1.1', 'and the tests?');
    await settle();
    runs.get('sub-1.1')!.finish({ status: 'done', text: 'tests pass' });
    await settle();
    expect(manager.undelivered()).toEqual(['sub-1.1']);
    expect(boundary()).toEqual(['Sub-agent sub-1.1 completed. Call agent_poll with id sub-1.1 for its summary.']);
    expect(manager.undelivered()).toEqual([]);
  });

  it('while its owner runs again, the owner hears of it, not the parent', async () => {
    const { manager, runs, boundary } = setup({ maxDepth: 2 });
    manager.restore([stored('sub-1'), stored('sub-1.1', { owner: 'sub-1', depth: 2 })]);
    manager.send('sub-1', 'check it again');
    manager.send('sub-1.1', 'again');
    await settle();
    runs.get('sub-1.1')!.finish({ status: 'done', text: 'again done' });
    await settle();
    expect(boundary()).toEqual([]);
    expect(runs.get('sub-1')!.request.takeInbox!().map(textOf)).toEqual([
      'Sub-agent sub-1.1 completed. Call agent_poll with id sub-1.1 for its summary.',
    ]);
  });
});
