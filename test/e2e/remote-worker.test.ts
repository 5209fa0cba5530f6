/**
 * The built binary as `outrider worker`: two workers (their own homes, keys and caches) take
 * jobs a session-side runner sends through a private Redis, fetch the job's commit from a bare
 * repository (the shared remote), let the mock model write a file, and push the branch back.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinDefinitions } from '../../src/core/agents/builtin-agents.js';
import type { ChildRunRequest } from '../../src/core/jobs/job-types.js';
import type { LoopEvent } from '../../src/core/loop/events.js';
import type { RemoteBranch } from '../../src/core/remote/channels.js';
import { type RemoteChildRunner, remoteChildRunner } from '../../src/core/remote/remote-runner.js';
import { barrier } from '../support/barrier.js';
import { useMockProject } from '../support/e2e-project.js';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { exited } from '../support/process.js';
import { useRedis } from '../support/redis.js';
import { git } from '../support/git.js';
import { startQueueWorker } from '../support/queue-worker.js';
import { type LiveCli, TEST_KEY } from '../support/run-cli.js';
import { until } from '../support/until.js';

const t = useMockProject();
const startRedis = useRedis();
const running: LiveCli[] = [];
const runners: RemoteChildRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.close()));
  for (const worker of running.splice(0)) if (!exited(worker.pid)) worker.signal('SIGKILL');
});

/** A bare repository with one commit, pushed under the session's own ref. */
function sharedRemote() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'outrider-e2e-remote-'));
  const bare = path.join(root, 'shared.git');
  const checkout = path.join(root, 'checkout');
  git(root, 'init', '-q', '--bare', bare);
  git(root, 'init', '-q', '-b', 'main', checkout);
  writeFileSync(path.join(checkout, 'README.md'), 'the project\n');
  git(checkout, 'add', '-A');
  git(checkout, 'commit', '-q', '-m', 'first');
  git(checkout, 'push', '-q', bare, 'HEAD:refs/outrider-snapshots/sess1');
  return { bare, commit: git(checkout, 'rev-parse', 'HEAD') };
}

/** Starts `outrider worker` in a home of its own; resolves once it says it takes jobs. */
const startWorker = (redisUrl: string, name: string, extra: string[] = []): Promise<LiveCli> =>
  startQueueWorker({
    env: t.env,
    redisUrl,
    name,
    args: ['--concurrency', '1', '--permission-mode', 'accept-edits', ...extra],
    running,
  });

function sessionRunner(
  redisUrl: string,
  remote: { bare: string; commit: string },
  hooks: Parameters<typeof remoteChildRunner>[0] extends infer O ? Partial<O> : never = {},
) {
  const definitions = new Map(builtinDefinitions().map((d) => [d.name, d]));
  const runner = remoteChildRunner({
    redisUrl,
    sessionId: 'sess1',
    definitions: () => definitions,
    workspaceFor: async () => ({ remote: remote.bare, commit: remote.commit, ref: 'refs/outrider-snapshots/sess1' }),
    timing: { stalledIntervalMs: 500, statePollMs: 100 },
    secrets: [TEST_KEY],
    ...hooks,
  });
  runners.push(runner);
  return runner;
}

function request(id: string, task: string, events: LoopEvent[] = [], signal = new AbortController().signal): ChildRunRequest {
  return { id, task, definition: 'general', mode: 'typed', signal, onEvent: (e) => events.push(e) };
}

const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system ?? '').includes('You are a sub-agent');
/** The job's file, named in its task: `write file-3.txt`. */
const fileOf = (r: RecordedRequest) => /write (file-\d+\.txt)/.exec(JSON.stringify(r.body.messages[0]))?.[1] ?? 'unknown.txt';

describe('outrider worker', () => {
  it('two workers share four jobs; each writes its file and its branch comes back to the shared remote', async () => {
    const redis = await startRedis();
    const remote = sharedRemote();
    // Nothing is answered until both workers hold a job: the run can only finish if both work at once.
    const both = barrier(2, { what: 'a first child request from each worker' });
    t.mock.respond(async (r): Promise<Reply> => {
      if (!isChild(r)) return { text: 'not a child' };
      if (r.body.messages.length === 1) {
        if (both.arrived < 2) await both.arrive();
        return { toolCalls: [{ name: 'write_file', args: { path: fileOf(r), content: `${fileOf(r)} from a worker\n` } }] };
      }
      return { text: `wrote ${fileOf(r)}` };
    });
    await startWorker(redis.url, 'w-a');
    await startWorker(redis.url, 'w-b');
    const workers = new Map<string, string>();
    const branches = new Map<string, RemoteBranch>();
    const runner = sessionRunner(redis.url, remote, {
      onWorker: (id, name) => workers.set(id, name),
      onBranch: (id, branch) => branches.set(id, branch),
    });

    const outcomes = await Promise.all([1, 2, 3, 4].map((n) => runner(request(`sub-${n}`, `write file-${n}.txt`))));

    both.assertOpened();
    expect(outcomes.map((o) => o.text)).toEqual(['wrote file-1.txt', 'wrote file-2.txt', 'wrote file-3.txt', 'wrote file-4.txt']);
    expect(new Set(workers.values())).toEqual(new Set(['w-a', 'w-b']));
    for (const n of [1, 2, 3, 4]) {
      expect(branches.get(`sub-${n}`)).toMatchObject({ name: `outrider/sess1/sub-${n}`, files: [`file-${n}.txt`] });
      expect(git(remote.bare, 'show', `refs/heads/outrider/sess1/sub-${n}:file-${n}.txt`)).toBe(`file-${n}.txt from a worker`);
    }
    // Each worker used its own key from its own environment (here both the test's); none travelled.
    expect(
      t.mock.requests.filter(isChild).every((r) => String(r.headers['x-api-key'] ?? r.headers.authorization).includes(TEST_KEY)),
    ).toBe(true);
  });

  it('a stop reaches the worker, which stops the child and reports it', async () => {
    const redis = await startRedis();
    const remote = sharedRemote();
    t.mock.respond((r): Reply => (isChild(r) ? { text: 'thinking', fault: { kind: 'stall', afterChunks: 2 } } : { text: 'x' }));
    const worker = await startWorker(redis.url, 'w-stop');
    const runner = sessionRunner(redis.url, remote);
    const controller = new AbortController();
    const outcome = runner(request('sub-1', 'write file-1.txt', [], controller.signal));
    await until(() => t.mock.inFlight(isChild) === 1, { what: 'the child request to be in flight' });
    controller.abort();

    expect(await outcome).toMatchObject({ status: 'error', error: 'stopped' });
    await until(() => worker.stderr().includes('ended sess1.sub-1.'), {
      what: 'the worker to log the end',
      observe: () => worker.stderr(),
    });
    expect(worker.stderr()).toMatch(/ended sess1\.sub-1\.[0-9a-f]+: error \(stopped\)/);
  });

  it('kill -9 of a worker mid-job: the job ends "worker lost" and the other worker does not run it again', async () => {
    const redis = await startRedis();
    const remote = sharedRemote();
    t.mock.respond((r): Reply => (isChild(r) ? { text: 'half-way', fault: { kind: 'stall', afterChunks: 3 } } : { text: 'x' }));
    // Short lock and stall-check times: the dead worker's job is noticed within seconds.
    const quick = ['--lock-ms', '1000', '--stalled-interval-ms', '500'];
    const doomed = await startWorker(redis.url, 'w-doomed', quick);
    const workers: string[] = [];
    const enqueued: string[] = [];
    const runner = sessionRunner(redis.url, remote, {
      onWorker: (_id, name) => workers.push(name),
      onEnqueued: (_id, remoteId) => enqueued.push(remoteId),
    });
    const outcome = runner(request('sub-1', 'write file-1.txt'));
    await until(() => t.mock.inFlight(isChild) === 1, { what: 'the child request to be in flight' });
    const survivor = await startWorker(redis.url, 'w-survivor', quick);
    doomed.signal('SIGKILL');

    const ended = await outcome;
    expect(ended.status).toBe('error');
    expect(ended.error).toBe('worker lost (w-doomed stopped answering mid-job)');
    expect(workers).toEqual(['w-doomed']);
    // The survivor fetches the job and fails it without running it.
    const client = new Redis(redis.url);
    const jobs = new Queue('jobs', { connection: client, prefix: 'outrider:default' });
    try {
      await until(async () => (await jobs.getJobState(enqueued[0]!)) === 'failed', { what: 'the queue to fail the lost job' });
    } finally {
      await jobs.close();
      client.disconnect();
    }
    expect(t.mock.requests.filter(isChild)).toHaveLength(1);
    expect(survivor.stderr()).not.toContain('took sess1.sub-1');
  });

  it('SIGTERM: the worker stops taking jobs, stops the running one after its grace, and exits 0', async () => {
    const redis = await startRedis();
    const remote = sharedRemote();
    t.mock.respond((r): Reply => (isChild(r) ? { text: 'slow', fault: { kind: 'stall', afterChunks: 2 } } : { text: 'x' }));
    const worker = await startWorker(redis.url, 'w-term', ['--grace-seconds', '0']);
    const runner = sessionRunner(redis.url, remote);
    const outcome = runner(request('sub-1', 'write file-1.txt'));
    await until(() => t.mock.inFlight(isChild) === 1, { what: 'the child request to be in flight' });
    worker.signal('SIGTERM');

    expect(await outcome).toMatchObject({ status: 'error', error: 'stopped: the worker is shutting down' });
    expect(await worker.exited(20_000)).toEqual({ code: 0, signal: null });
    expect(worker.stderr()).toContain('SIGTERM: no new jobs');
  });
});
