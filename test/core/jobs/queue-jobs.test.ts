import { describe, expect, it } from 'vitest';
import { DetachedRun } from '../../../src/core/jobs/job-error.js';
import { JobManager } from '../../../src/core/jobs/job-manager.js';
import type { ChildOutcome, ChildRunRequest, Job, JobEvent } from '../../../src/core/jobs/job-types.js';
import { FakeClock, settle } from '../../support/fake-clock.js';

/** A queue stand-in: runs report their queue id and worker, and all detach when the session lets go. */
function fakeQueue() {
  const runs = new Map<string, { request: ChildRunRequest; end: (o: ChildOutcome) => void; detach: () => void }>();
  const run = (request: ChildRunRequest) =>
    new Promise<ChildOutcome>((resolve, reject) => {
      runs.set(request.id, { request, end: resolve, detach: () => reject(new DetachedRun('let go')) });
      request.onRemote?.({ remoteId: request.attach?.remoteId ?? `q-${request.id}` });
      request.onRemote?.({ worker: 'build-2' });
    });
  return { run, runs, detach: async () => runs.forEach((r) => r.detach()) };
}

function setup(maxConcurrent = 1) {
  const queue = fakeQueue();
  const clock = new FakeClock();
  const events: JobEvent[] = [];
  const local: string[] = [];
  const manager = new JobManager({
    maxConcurrent,
    emit: (e) => events.push(e),
    now: clock.now,
    timers: clock,
    run: (request) => {
      if (request.where === 'local') {
        local.push(request.id);
        // As a real run does: a stop ends it.
        return new Promise((resolve) =>
          request.signal.addEventListener('abort', () => resolve({ status: 'done', text: 'stopped here' })),
        );
      }
      return queue.run(request);
    },
    remote: { runsRemotely: (job: Job) => job.where !== 'local', detach: queue.detach },
  });
  return { manager, queue, events, local, clock };
}

describe('JobManager: jobs on a queue', () => {
  it('queue jobs take no local slot; a job kept local does, and the job snapshot names its queue id and worker', async () => {
    const { manager, queue, local } = setup(1);
    for (const task of ['a', 'b', 'c']) manager.start(task);
    manager.start('here', { where: 'local' });
    await settle();
    expect([...queue.runs.keys()]).toEqual(['sub-1', 'sub-2', 'sub-3']);
    expect(local).toEqual(['sub-4']);
    expect(manager.get('sub-2')).toMatchObject({ state: 'running', remoteId: 'q-sub-2', worker: 'build-2' });
    expect(manager.get('sub-2').where).toBeUndefined();
    expect(manager.get('sub-4').where).toBe('local');
  });

  it('closing lets queue jobs go on (running, not interrupted, not stopped) and stops the rest as interrupted', async () => {
    const { manager, events } = setup(2);
    manager.start('remote one');
    manager.start('kept here', { where: 'local' });
    await settle();
    await manager.close();
    const remote = manager.get('sub-1');
    expect(remote.state).toBe('running');
    expect(remote.interrupted).toBeUndefined();
    expect(manager.get('sub-2')).toMatchObject({ state: 'aborted', interrupted: true });
    // Nothing was published for sub-1 after it was let go: its last record says running.
    const last = events.filter((e) => e.type === 'job_state' && e.job.id === 'sub-1').at(-1);
    expect(last).toMatchObject({ job: { state: 'running', remoteId: 'q-sub-1' } });
  });

  it('a resumed session follows a queue job it left running again, and its end is delivered once', async () => {
    const { manager, queue } = setup();
    const job: Job = {
      id: 'sub-1',
      number: 1,
      state: 'running',
      definition: 'general',
      mode: 'typed',
      task: 'left running',
      createdAt: 0,
      startedAt: 0,
      turns: 2,
      toolCalls: 1,
      contextTokens: 0,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      remoteId: 'q-old',
    };
    manager.restore([{ job, messages: [] }]);
    await settle();
    expect(queue.runs.get('sub-1')!.request.attach).toEqual({ remoteId: 'q-old' });
    queue.runs.get('sub-1')!.end({ status: 'done', text: 'finished on its worker' });
    await settle();
    expect(manager.get('sub-1')).toMatchObject({ state: 'done', result: 'finished on its worker', startedAt: 0 });
    const notices = manager.boundaryMessages();
    expect(notices.map((m) => m.noticeFor)).toEqual([['sub-1']]);
    for (const m of notices) manager.confirm(m);
    expect(manager.boundaryMessages()).toEqual([]);
  });

  it('without the queue this time, a job left running on it is listed as out of reach, not as running', () => {
    const manager = new JobManager({ run: () => new Promise(() => {}) });
    manager.restore([
      {
        job: {
          id: 'sub-1',
          number: 1,
          state: 'running',
          definition: 'general',
          mode: 'typed',
          task: 't',
          createdAt: 0,
          turns: 0,
          toolCalls: 0,
          contextTokens: 0,
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          remoteId: 'q-1',
          worker: 'build-2',
        },
        messages: [],
      },
    ]);
    expect(manager.get('sub-1')).toMatchObject({
      state: 'error',
      error: 'it runs on the queue (build-2); resume the session with --queue to follow it',
    });
    expect(manager.active()).toEqual([]);
  });
});
