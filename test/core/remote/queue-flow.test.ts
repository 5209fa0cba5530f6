import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { builtinDefinitions } from '../../../src/core/agents/builtin-agents.js';
import type { Message } from '../../../src/core/providers/types.js';
import { buildPayload } from '../../../src/core/remote/build-payload.js';
import { RemoteJobDetached } from '../../../src/core/remote/job-follower.js';
import { useRedis } from '../../support/redis.js';
import { until } from '../../support/until.js';
import { COMMIT, delta, gate, recordingRequest, scriptedJob, useQueue } from './remote-helpers.js';

const startRedis = useRedis();
const queue = useQueue();

describe('jobs over the queue', () => {
  it("streams the child's events in order, then its outcome, messages, usage and the worker's name", async () => {
    const redis = await startRedis();
    const job = scriptedJob({ count: 300, answer: 'all done' });
    await queue.worker(redis.url, { name: 'build-2', runJob: job.runJob });
    const workers: string[] = [];
    const usages: unknown[] = [];
    const runner = queue.runner(redis.url, { onWorker: (_id, name) => workers.push(name), onUsage: (_id, u) => usages.push(u) });
    const { request, events, messages } = recordingRequest('sub-1');

    const outcome = await runner(request);

    expect(outcome).toMatchObject({ status: 'done', text: 'all done' });
    expect(events).toEqual(Array.from({ length: 300 }, (_, i) => delta(`d${i} `)));
    expect(outcome.messages?.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages).toHaveLength(2);
    expect(workers).toEqual(['build-2']);
    expect(usages).toEqual([{ input: 10, output: 5, cacheRead: 0, cacheWrite: 0 }]);
    expect(job.seen.payload).toMatchObject({
      jobId: 'sub-1',
      sessionId: 'sess1',
      task: 'task of sub-1',
      definition: { name: 'general' },
    });
  });

  it("a stop reaches the worker's signal, and the job ends stopped", async () => {
    const redis = await startRedis();
    let sawAbort = false;
    await queue.worker(redis.url, {
      runJob: async (_payload, context) => {
        context.onEvent(delta('working'));
        await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
        sawAbort = true;
        return {
          outcome: { status: 'error', text: 'partial', error: 'stopped' },
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        };
      },
    });
    const runner = queue.runner(redis.url);
    const { request, events, controller } = recordingRequest('sub-1');
    const outcome = runner(request);
    await until(() => events.length > 0, { what: 'the first event from the worker' });
    controller.abort();

    expect(await outcome).toMatchObject({ status: 'error', text: 'partial', error: 'stopped' });
    expect(sawAbort).toBe(true);
  });

  it("a message sent to a running job (agent_send) reaches the worker's child", async () => {
    const redis = await startRedis();
    await queue.worker(redis.url, {
      runJob: async (_payload, context) => {
        context.onEvent(delta('waiting for a message'));
        const received = await until(() => context.takeInbox()[0], { what: 'a message in the inbox' });
        const text = `got: ${received.content.map((b) => (b.type === 'text' ? b.text : '')).join('')}`;
        return { outcome: { status: 'done', text }, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
      },
    });
    const runner = queue.runner(redis.url);
    const inbox: Message[] = [];
    const { request, events } = recordingRequest('sub-1', { takeInbox: () => inbox.splice(0) });
    const outcome = runner(request);
    await until(() => events.length > 0, { what: 'the job to run' });
    inbox.push({ role: 'user', content: [{ type: 'text', text: 'also check the tests' }] });

    expect(await outcome).toMatchObject({ status: 'done', text: 'got: also check the tests' });
  });

  it('the worker holds a job to its own cap, so a session that went away cannot overspend', async () => {
    const redis = await startRedis();
    await queue.worker(redis.url, {
      runJob: async (_payload, context) => {
        const usage = { input: 20, output: 0, cacheRead: 0, cacheWrite: 0 };
        for (let call = 0; call < 10 && !context.signal.aborted; call += 1)
          context.onEvent({ type: 'usage', usage, total: usage });
        return { outcome: { status: 'error', text: 'partial', error: 'stopped' }, usage };
      },
    });
    const runner = queue.runner(redis.url, { capsFor: () => ({ maxTokens: 50 }) });

    const outcome = await runner(recordingRequest('sub-1').request);

    expect(outcome).toMatchObject({ status: 'error', text: 'partial', error: 'budget: tokens reached (60 of 50)' });
  });

  it('a job stopped before any worker took it leaves the queue', async () => {
    const redis = await startRedis();
    const enqueued: string[] = [];
    const runner = queue.runner(redis.url, { onEnqueued: (_id, remoteId) => enqueued.push(remoteId) });
    const { request, controller } = recordingRequest('sub-1');
    const waiting = runner(request);
    await until(() => enqueued.length > 0, { what: 'the job to be on the queue' });
    controller.abort();
    expect(await waiting).toMatchObject({ status: 'error', error: 'stopped' });

    // A worker started now finds nothing to do.
    const job = scriptedJob({ count: 1 });
    await queue.worker(redis.url, { runJob: job.runJob });
    const client = new Redis(redis.url);
    try {
      expect(await new Queue('jobs', { connection: client, prefix: 'outrider:default' }).getJobState(enqueued[0]!)).toBe(
        'unknown',
      );
    } finally {
      client.disconnect();
    }
    expect(job.seen.payload).toBeUndefined();
  });

  it('a session that re-attaches after it went away reads every event once, in order', async () => {
    const redis = await startRedis();
    const hold = gate();
    const job = scriptedJob({ count: 40, holdAt: 20, hold: hold.opened, answer: 'survived' });
    await queue.worker(redis.url, { runJob: job.runJob });

    // The first session sees the job start, then goes away without stopping it.
    const enqueued: string[] = [];
    const first = queue.runner(redis.url, { onEnqueued: (_id, remoteId) => enqueued.push(remoteId) });
    const before = recordingRequest('sub-1');
    const abandoned = first(before.request).catch((error: unknown) => error);
    await until(() => before.events.length === 20, { what: 'the first 20 events', observe: () => before.events.length });
    await first.close();
    const detached = await abandoned;
    expect(detached).toBeInstanceOf(RemoteJobDetached);
    expect((detached as RemoteJobDetached).remoteId).toBe(enqueued[0]);

    // The resumed session attaches by id while the job still runs, and it finishes.
    const second = queue.runner(redis.url);
    const after = recordingRequest('sub-1');
    const attached = second.attach(enqueued[0]!, after.request);
    hold.open();
    const outcome = await attached;

    expect(outcome).toMatchObject({ status: 'done', text: 'survived' });
    expect(after.events).toEqual(Array.from({ length: 40 }, (_, i) => delta(`d${i} `)));
    expect(after.messages).toHaveLength(2);
  });

  it('re-attaching after the last entry a session saw reads only what it missed', async () => {
    const redis = await startRedis();
    const hold = gate();
    const job = scriptedJob({ count: 40, holdAt: 20, hold: hold.opened });
    await queue.worker(redis.url, { runJob: job.runJob });
    const first = queue.runner(redis.url);
    const before = recordingRequest('sub-1');
    const abandoned = first(before.request).catch((error: unknown) => error);
    await until(() => before.events.length === 20, { what: 'the first 20 events' });
    await first.close();
    const { remoteId, cursor } = (await abandoned) as RemoteJobDetached;

    const after = recordingRequest('sub-1');
    const attached = queue.runner(redis.url).attach(remoteId, after.request, { after: cursor });
    hold.open();
    await attached;

    expect([...before.events, ...after.events]).toEqual(Array.from({ length: 40 }, (_, i) => delta(`d${i} `)));
  });

  it('routes a labelled job to a worker with that label', async () => {
    const redis = await startRedis();
    const plain = scriptedJob({ count: 1, answer: 'plain' });
    const gpu = scriptedJob({ count: 1, answer: 'gpu' });
    await queue.worker(redis.url, { name: 'plain', runJob: plain.runJob });
    await queue.worker(redis.url, { name: 'gpu-box', labels: ['gpu'], runJob: gpu.runJob });
    const workers = new Map<string, string>();
    const runner = queue.runner(redis.url, {
      labelsFor: (request) => (request.task.includes('needs gpu') ? ['gpu'] : []),
      onWorker: (id, name) => workers.set(id, name),
    });

    const labelled = await runner(recordingRequest('sub-1', { task: 'needs gpu' }).request);
    expect(labelled.text).toBe('gpu');
    expect(workers.get('sub-1')).toBe('gpu-box');
    expect(gpu.seen.payload?.labels).toEqual(['gpu']);
    expect(plain.seen.payload).toBeUndefined();
  });

  it('a worker refuses a payload of an unknown version or one asking more than its ceiling, saying why', async () => {
    const redis = await startRedis();
    const job = scriptedJob({ count: 1 });
    await queue.worker(redis.url, { name: 'strict', runJob: job.runJob });
    const client = new Redis(redis.url);
    const jobs = new Queue('jobs', { connection: client, prefix: 'outrider:default' });
    const general = builtinDefinitions().find((d) => d.name === 'general')!;
    const base = buildPayload({
      remoteId: 'sess1.sub-7.aa',
      sessionId: 'sess1',
      request: { id: 'sub-7', task: 't', mode: 'typed' },
      definition: general,
      workspace: { remote: 'file:///x.git', commit: COMMIT },
    });
    try {
      await jobs.add('sub-agent', { ...base, version: 2 }, { jobId: 'sess1.sub-7.aa' });
      await jobs.add(
        'sub-agent',
        { ...base, remoteId: 'sess1.sub-8.bb', jobId: 'sub-8', permissionMode: 'yolo' },
        { jobId: 'sess1.sub-8.bb' },
      );
      const runner = queue.runner(redis.url);
      const [newer, wider] = await Promise.all([
        runner.attach('sess1.sub-7.aa', recordingRequest('sub-7').request),
        runner.attach('sess1.sub-8.bb', recordingRequest('sub-8').request),
      ]);
      expect(newer.status).toBe('error');
      expect(newer.error).toMatch(/^refused by worker strict: payload version 2 is not one this worker reads/);
      expect(wider.error).toMatch(
        /^refused by worker strict: the job asks for permission mode yolo, and this worker allows at most accept-edits/,
      );
      expect(job.seen.payload).toBeUndefined();
    } finally {
      await jobs.close();
      client.disconnect();
    }
  });
});
