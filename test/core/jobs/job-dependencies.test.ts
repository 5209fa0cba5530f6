import { describe, expect, it } from 'vitest';
import type { JobManager } from '../../../src/core/jobs/job-manager.js';
import type { ToolUseBlock } from '../../../src/core/providers/types.js';
import { controlledRunner, jobManagerHarness } from '../../support/controlled-runner.js';
import { settle } from '../../support/fake-clock.js';
import { fakeShell } from '../../support/fake-shell.js';

const setup = jobManagerHarness;
const never = new AbortController().signal;
const startCall = (id: string): ToolUseBlock => ({ type: 'tool_use', id, name: 'agent_start', input: {} });
/** The task the runner was given for job `id` (its last run). */
const taskOf = (runner: ReturnType<typeof controlledRunner>, id: string): string | undefined =>
  runner.requests.filter((r) => r.id === id).at(-1)?.task;

describe('jobs that wait for jobs', () => {
  it('waits queued without taking a slot, then runs with the reports added to its task, labelled', async () => {
    const { manager, runner } = setup({ maxConcurrent: 2 });
    manager.start('map the auth module');
    manager.start('map the billing module');
    const waiting = manager.start('compare them', { after: ['sub-1', '2'] });
    expect(waiting).toMatchObject({ id: 'sub-3', state: 'queued', after: ['sub-1', 'sub-2'], waitingFor: ['sub-1', 'sub-2'] });
    await settle();
    runner.finish('sub-1', { status: 'done', text: 'auth uses JWTs' });
    await settle();
    expect(manager.get('sub-3').waitingFor).toEqual(['sub-2']);
    // A job without dependencies takes the slot sub-1 left; the waiting job took none.
    manager.start('unrelated');
    await settle();
    expect([...runner.running.keys()]).toEqual(['sub-2', 'sub-4']);
    runner.finish('sub-4');
    await settle();
    expect(runner.started).not.toContain('sub-3');
    runner.finish('sub-2', { status: 'done', text: 'billing retries twice' });
    await settle();
    expect(runner.running.has('sub-3')).toBe(true);
    expect(taskOf(runner, 'sub-3')).toBe(
      [
        'compare them',
        '',
        'Reports of the sub-agents this task waited for:',
        '',
        '--- report of sub-1 (its task: map the auth module) ---',
        'auth uses JWTs',
        "--- end of sub-1's report ---",
        '',
        '--- report of sub-2 (its task: map the billing module) ---',
        'billing retries twice',
        "--- end of sub-2's report ---",
      ].join('\n'),
    );
    expect(manager.get('sub-3')).toMatchObject({ state: 'running', afterMet: true });
    expect(manager.get('sub-3').waitingFor).toBeUndefined();
  });

  it('runs at once when every job it names has already ended done', async () => {
    const { manager, runner } = setup();
    manager.start('first');
    await settle();
    runner.finish('sub-1');
    await settle();
    const job = manager.start('second', { after: ['sub-1'] });
    expect(job.waitingFor).toBeUndefined();
    await settle();
    expect(taskOf(runner, 'sub-2')).toContain('report of sub-1');
  });

  it('a failed dependency ends the waiting job as failed, naming it; it never runs and the parent hears', async () => {
    const { manager, runner, boundary } = setup();
    manager.start('a');
    manager.start('b', { after: ['sub-1'] });
    await settle();
    runner.finish('sub-1', { status: 'error', text: '(sub-agent produced no text output)', error: 'maxTurns reached' });
    await settle();
    expect(manager.get('sub-2')).toMatchObject({ state: 'error', error: 'sub-1, which it waited for, failed: maxTurns reached' });
    expect(runner.started).toEqual(['sub-1']);
    expect(boundary()).toEqual(['Sub-agents sub-1, sub-2 completed. Call agent_poll for each summary.']);
    expect(manager.describePoll(await manager.poll('sub-2', never)).content).toBe(
      'sub-agent sub-2 failed: sub-1, which it waited for, failed: maxTurns reached',
    );
  });

  it('a dependency stopped while its dependant waits stops the dependant too, with the reason, down the chain', async () => {
    const { manager, runner, boundary } = setup();
    manager.start('a');
    manager.start('b', { after: ['sub-1'] });
    manager.start('c', { after: ['sub-2'] });
    await settle();
    expect(manager.dependencies.dependantsOf('1')).toEqual(['sub-2']);
    manager.stop('sub-1');
    expect(manager.get('sub-2')).toMatchObject({ state: 'aborted', error: 'sub-1, which it waited for, was stopped' });
    expect(manager.get('sub-3')).toMatchObject({ state: 'aborted', error: 'sub-2, which it waited for, was stopped' });
    await settle();
    expect(runner.started).toEqual(['sub-1']);
    // Stops are never announced.
    expect(boundary()).toEqual([]);
    expect(manager.describePoll(await manager.poll('sub-2', never)).content).toBe(
      'sub-agent sub-2 was stopped: sub-1, which it waited for, was stopped',
    );
  });

  it('agent_stop of a waiting job stops it; it never takes a slot, and the job it waited for runs on', async () => {
    const { manager, runner } = setup({ maxConcurrent: 1 });
    manager.start('a');
    manager.start('b', { after: ['sub-1'] });
    await settle();
    manager.stop('sub-2');
    expect(manager.get('sub-2').state).toBe('aborted');
    expect(manager.get('sub-1').state).toBe('running');
    runner.finish('sub-1');
    await settle();
    expect(runner.started).toEqual(['sub-1']);
    expect(manager.get('sub-2').state).toBe('aborted');
    // Closing does not wait for it: its place was given up when it stopped.
    await manager.close();
  });

  it('a dependency that finishes in the same tick as the dependant is stopped: stopped, never run, resumable', async () => {
    const { manager, runner } = setup();
    manager.start('a');
    manager.start('b', { after: ['sub-1'] });
    await settle();
    runner.finish('sub-1');
    manager.stop('sub-2');
    await settle();
    expect(manager.get('sub-2').state).toBe('aborted');
    expect(manager.get('sub-1').state).toBe('done');
    expect(runner.started).toEqual(['sub-1']);
    // Resumed by a message, it runs, the report of the job it waited for in its task.
    manager.send('sub-2', 'go on');
    await settle();
    expect(runner.started).toEqual(['sub-1', 'sub-2']);
    expect(taskOf(runner, 'sub-2')).toMatch(/^b\n\nThe parent adds: go on\n\nReports of the sub-agents.*report of sub-1/s);
  });

  it('a stop that lands after the dependency was published done, before the dependant took its place: never run', async () => {
    const ref: { manager?: JobManager } = {};
    let stopped = false;
    const { manager, runner } = setup({
      emit: (e) => {
        // The moment the last dependency's end lets sub-2 go: its queue entry is not added yet.
        if (!stopped && e.type === 'job_state' && e.job.id === 'sub-2' && e.job.afterMet && e.job.state === 'queued') {
          stopped = true;
          ref.manager!.stop('sub-2');
        }
      },
    });
    ref.manager = manager;
    manager.start('a');
    manager.start('b', { after: ['sub-1'] });
    await settle();
    runner.finish('sub-1');
    await settle();
    expect(manager.get('sub-2').state).toBe('aborted');
    expect(runner.started).toEqual(['sub-1']);
    // Its place was given up: a message resumes it, once, with the reports already in its task.
    manager.send('sub-2', 'go on');
    await settle();
    expect(runner.started).toEqual(['sub-1', 'sub-2']);
    expect(taskOf(runner, 'sub-2')!.match(/--- report of sub-1/g)).toHaveLength(1);
  });

  it('a stopped dependant resumed while its dependency still runs waits again', async () => {
    const { manager, runner } = setup();
    manager.start('a');
    manager.start('b', { after: ['sub-1'] });
    await settle();
    manager.stop('sub-2');
    manager.send('sub-2', 'try again');
    expect(manager.get('sub-2')).toMatchObject({ state: 'queued', waitingFor: ['sub-1'] });
    await settle();
    expect(runner.started).toEqual(['sub-1']);
    runner.finish('sub-1');
    await settle();
    expect(runner.started).toEqual(['sub-1', 'sub-2']);
  });

  it('refuses self, unknown ids, shells, jobs another agent started and failed or stopped jobs, saying why', async () => {
    const { manager, runner } = setup();
    manager.reserve([startCall('c1')]);
    expect(() => manager.start('x', { callId: 'c1', after: ['sub-1'] })).toThrow(
      'sub-1 cannot wait for itself: after names jobs started before it',
    );
    expect(() => manager.start('x', { after: ['sub-9'] })).toThrow(
      'unknown sub-agent id "sub-9" in after: a job can wait only for sub-agents already started (one started in this same response may not exist yet: start the waiting job in a later response). You have started no sub-agents yet.',
    );
    manager.start('parent job');
    const shell = manager.adoptShell(fakeShell().handle, { command: 'npm run dev' });
    expect(() => manager.start('x', { after: [shell.id] })).toThrow(
      'sh-1 is a background shell; after takes sub-agent ids (poll the shell, then start the sub-agent). Ids you can wait for: sub-3.',
    );
    await settle();
    const deep = setup({ maxDepth: 2 });
    deep.manager.start('owner');
    await settle();
    deep.manager.start('its own', { owner: 'sub-1' });
    expect(() => deep.manager.start('x', { after: ['sub-1.1'] })).toThrow(
      'sub-1.1 was started by sub-1, not by you: after takes ids of sub-agents you started. Ids you can wait for: sub-1.',
    );
    // A job may wait for a sibling its own owner started.
    expect(deep.manager.start('sibling', { owner: 'sub-1', after: ['sub-1.1'] }).waitingFor).toEqual(['sub-1.1']);
    runner.finish('sub-3', { status: 'error', text: '', error: 'boom' });
    await settle();
    expect(() => manager.start('x', { after: ['sub-3'] })).toThrow(
      'sub-3 failed (boom), so a job waiting for it would run without its report: resume sub-3 with agent_send first, or leave it out of after',
    );
  });
});
