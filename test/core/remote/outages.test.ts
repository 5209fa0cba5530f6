import { type ChildProcess, spawn } from 'node:child_process';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteQueueError } from '../../../src/core/remote/remote-errors.js';
import { runWorker } from '../../../src/core/remote/queue-worker.js';
import { exited } from '../../support/process.js';
import { freePort, useRedis } from '../../support/redis.js';
import { until } from '../../support/until.js';
import { QUICK, delta, gate, recordingRequest, scriptedJob, useQueue } from './remote-helpers.js';
import { buildWorkerProcess } from './worker-process-build.js';

const startRedis = useRedis();
const queue = useQueue();
const spawned: ChildProcess[] = [];
afterEach(() => {
  for (const child of spawned.splice(0)) if (child.pid && !exited(child.pid)) child.kill('SIGKILL');
});
const workerScript = await buildWorkerProcess();

describe('a worker that dies mid-job', () => {
  it('ends the job "worker lost" with what it had streamed, and does not run it again', async () => {
    const redis = await startRedis();
    const child = spawn(process.execPath, [workerScript, JSON.stringify({ redisUrl: redis.url, name: 'doomed', ...QUICK })], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    spawned.push(child);
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await until(() => stdout.includes('ready'), { what: 'the worker process to start', observe: () => stdout });

    const workers: string[] = [];
    const enqueued: string[] = [];
    const runner = queue.runner(redis.url, {
      onWorker: (_id, name) => workers.push(name),
      onEnqueued: (_id, remoteId) => enqueued.push(remoteId),
    });
    const { request, events } = recordingRequest('sub-1');
    const outcome = runner(request);
    await until(() => events.length > 0, { what: 'the worker to start the job' });
    // A second worker is up when the first dies: it must not run the job again.
    const survivor = scriptedJob({ count: 1 });
    await queue.worker(redis.url, { name: 'survivor', runJob: survivor.runJob });
    child.kill('SIGKILL');

    const ended = await outcome;
    expect(ended.status).toBe('error');
    expect(ended.error).toBe('worker lost (doomed stopped answering mid-job)');
    expect(ended.text).toBe('half-way there');
    expect(ended.messages?.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(workers).toEqual(['doomed']);
    expect(events).toEqual([delta('half-way there')]);
    // The survivor fetches the job and fails it without running it.
    const client = new Redis(redis.url);
    const jobs = new Queue('jobs', { connection: client, prefix: 'outrider:default' });
    try {
      await until(async () => (await jobs.getJobState(enqueued[0]!)) === 'failed', { what: 'the queue to fail the lost job' });
    } finally {
      await jobs.close();
      client.disconnect();
    }
    expect(survivor.seen.payload).toBeUndefined();
  });
});

describe('Redis unreachable', () => {
  it('at start: a clear error naming the address without its password, and what to do', async () => {
    const port = await freePort();
    const runner = queue.runner(`redis://:hunter2secret@127.0.0.1:${port}`);
    const failure = (await runner(recordingRequest().request).then(
      () => undefined,
      (error: unknown) => error,
    )) as Error;
    expect(failure).toBeInstanceOf(RemoteQueueError);
    expect(failure.message).toMatch(
      new RegExp(
        `^cannot reach the queue at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\): start Redis there`,
      ),
    );
    expect(failure.message).not.toContain('hunter2secret');
    await expect(
      runWorker({
        redisUrl: `rediss://:hunter2secret@127.0.0.1:${port}`,
        name: 'w',
        ceiling: { permissionMode: 'default', sandbox: 'off' },
        runJob: async () => {
          throw new Error('never');
        },
      }),
    ).rejects.toThrow(new RegExp(`cannot reach the queue at rediss://:\\*\\*\\*@127\\.0\\.0\\.1:${port}`));
  });

  it('with a wrong password: says the credentials were refused, without them', async () => {
    const redis = await startRedis({ password: 'the-right-one' });
    const runner = queue.runner(`redis://:the-wrong-one@127.0.0.1:${redis.port}`);
    const failure = await runner.check().catch((error: unknown) => error as Error);
    expect(failure?.message).toMatch(/^the queue at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+ refused the credentials/);
    expect(failure?.message).not.toContain('the-wrong-one');
    // And the right one works.
    await queue.runner(redis.url).check();
  });

  it('mid-run: the session hears it is lost and back, and the job goes on', async () => {
    const redis = await startRedis({ persist: true });
    const hold = gate();
    const job = scriptedJob({ count: 10, holdAt: 5, hold: hold.opened, answer: 'made it' });
    // The default lock (30 s) outlasts the outage: the worker is alive and keeps its job.
    await queue.worker(redis.url, { runJob: job.runJob, lockDurationMs: 30_000, stalledIntervalMs: 30_000 });
    const states: string[] = [];
    const runner = queue.runner(redis.url, { onConnection: (state) => states.push(state.kind) });
    const { request, events } = recordingRequest('sub-1');
    const outcome = runner(request);
    await until(() => events.length === 5, { what: 'the first five events' });

    await redis.kill9();
    await until(() => states.includes('lost'), { what: 'the session to notice the outage', observe: () => states });
    await redis.restart();
    await until(() => states.includes('back'), { what: 'the session to notice Redis is back', observe: () => states });
    hold.open();

    expect(await outcome).toMatchObject({ status: 'done', text: 'made it' });
    const deltas = events.filter((e) => e.type === 'text_delta');
    expect(deltas).toEqual(Array.from({ length: 10 }, (_, i) => delta(`d${i} `)));
    expect(events.some((e) => e.type === 'notice' && /lost the queue at redis:\/\/127\.0\.0\.1/.test(e.text))).toBe(true);
  });

  it('mid-run, for longer than the bound: the job fails, saying so', async () => {
    const redis = await startRedis();
    const hold = gate();
    const job = scriptedJob({ count: 2, holdAt: 1, hold: hold.opened });
    await queue.worker(redis.url, { runJob: job.runJob });
    const runner = queue.runner(redis.url, { timing: { outageLimitMs: 300, statePollMs: 100 } });
    const { request, events } = recordingRequest('sub-1');
    const outcome = runner(request);
    await until(() => events.length === 1, { what: 'the first event' });
    await redis.kill9();

    const ended = await outcome;
    expect(ended.status).toBe('error');
    expect(ended.error).toMatch(
      /^the queue at redis:\/\/127\.0\.0\.1:\d+ has been unreachable for 0 s \(.*\); start Redis again/,
    );
    hold.open();
  });
});
