import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { builtinDefinitions } from '../../../src/core/agents/builtin-agents.js';
import { createProvider } from '../../../src/core/providers/create.js';
import { buildPayload } from '../../../src/core/remote/build-payload.js';
import type { RemoteBranch } from '../../../src/core/remote/channels.js';
import { createWorkerJobRunner } from '../../../src/core/remote/worker-job.js';
import { type MockProvider, startMockProvider } from '../../support/mock-provider.js';
import { git } from '../../support/git.js';
import { useRedis } from '../../support/redis.js';
import { until } from '../../support/until.js';
import { recordingRequest, useQueue } from './remote-helpers.js';

const startRedis = useRedis();
const queue = useQueue();
let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const WORKER_KEY = 'sk-ant-worker-own-key-0123456789';
const SESSION_KEY = 'sk-ant-session-key-9876543210';

/** A bare repository as the shared remote, with one commit the session pushed under a ref of its own. */
function sharedRemote() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'outrider-remote-git-'));
  const bare = path.join(root, 'shared.git');
  const checkout = path.join(root, 'checkout');
  git(root, 'init', '-q', '--bare', bare);
  git(root, 'init', '-q', '-b', 'main', checkout);
  writeFileSync(path.join(checkout, 'README.md'), 'the project\n');
  git(checkout, 'add', '-A');
  git(checkout, 'commit', '-q', '-m', 'first');
  const commit = git(checkout, 'rev-parse', 'HEAD');
  git(checkout, 'push', '-q', bare, 'HEAD:refs/outrider-snapshots/sess1/sub-1');
  return { root, bare, commit };
}

describe("a worker's job runner", () => {
  it("fetches the job's commit into a fresh worktree, runs the child with its own key, and pushes its changes as a branch", async () => {
    const redis = await startRedis();
    const remote = sharedRemote();
    const cacheDir = path.join(remote.root, 'worker-cache');
    mock.script(
      { toolCalls: [{ name: 'write_file', args: { path: 'hello.txt', content: 'hello from the worker\n' } }] },
      { text: 'wrote hello.txt' },
    );
    const stream = createProvider({ provider: 'anthropic', apiKey: WORKER_KEY, baseURL: mock.anthropicBaseURL, maxRetries: 0 });
    await queue.worker(redis.url, {
      name: 'build-2',
      ceiling: { permissionMode: 'accept-edits', sandbox: 'off' },
      runJob: createWorkerJobRunner({
        cacheDir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ANTHROPIC_API_KEY: WORKER_KEY },
        stream,
        model: 'claude-sonnet-4-5',
        maxTokens: 1000,
        apiKey: WORKER_KEY,
      }),
    });
    const branches: RemoteBranch[] = [];
    const runner = queue.runner(redis.url, {
      workspaceFor: async () => ({ remote: remote.bare, commit: remote.commit, ref: 'refs/outrider-snapshots/sess1/sub-1' }),
      onBranch: (_id, branch) => branches.push(branch),
      secrets: [SESSION_KEY],
    });
    const { request, events } = recordingRequest('sub-1', { task: `write hello.txt (session key ${SESSION_KEY})` });

    const outcome = await runner(request);

    expect(outcome).toMatchObject({ status: 'done', text: 'wrote hello.txt' });
    expect(events.some((e) => e.type === 'tool_end' && e.name === 'write_file' && !e.isError)).toBe(true);
    expect(branches).toEqual([
      {
        name: 'outrider/sess1/sub-1',
        commit: expect.stringMatching(/^[0-9a-f]{40}$/),
        files: ['hello.txt'],
        insertions: 1,
        deletions: 0,
      },
    ]);
    expect(git(remote.bare, 'show', 'outrider/sess1/sub-1:hello.txt')).toBe('hello from the worker');
    expect(git(remote.bare, 'rev-parse', 'outrider/sess1/sub-1^')).toBe(remote.commit);
    // The worker's own key went to the model; the session's never left the session.
    const keys = mock.requests.map((r) => String(r.headers['x-api-key'] ?? r.headers.authorization));
    expect(keys).toEqual([expect.stringContaining(WORKER_KEY), expect.stringContaining(WORKER_KEY)]);
    expect(JSON.stringify(mock.requests.map((r) => r.body))).not.toContain(SESSION_KEY);
    // The job's worktree is gone; the cache clone stays for the next job.
    expect(readdirSync(path.join(cacheDir, 'worktrees'))).toEqual([]);
    expect(existsSync(path.join(cacheDir, 'repos'))).toBe(true);
  });

  it('a job whose commit is not on the remote ends with an error that says so', async () => {
    const redis = await startRedis();
    const remote = sharedRemote();
    const stream = createProvider({ provider: 'anthropic', apiKey: WORKER_KEY, baseURL: mock.anthropicBaseURL, maxRetries: 0 });
    await queue.worker(redis.url, {
      runJob: createWorkerJobRunner({
        cacheDir: path.join(remote.root, 'worker-cache'),
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
        stream,
        model: 'claude-sonnet-4-5',
        maxTokens: 1000,
      }),
    });
    const runner = queue.runner(redis.url, { workspaceFor: async () => ({ remote: remote.bare, commit: 'f'.repeat(40) }) });
    mock.respond(() => ({ text: 'never read' }));

    const first = await runner(recordingRequest('sub-1').request);
    // The first job's child may have sent its first request while the commit was fetched (and
    // been stopped when the fetch failed); from then on a job from that remote waits for its files.
    const sentByFirst = mock.requests.length;
    const second = await runner(recordingRequest('sub-2').request);

    for (const outcome of [first, second]) {
      expect(outcome.status).toBe('error');
      expect(outcome.error).toMatch(/^commit f{40} is not on .*shared\.git \(.*\): the session must push it there first$/);
    }
    expect(sentByFirst).toBeLessThanOrEqual(1);
    expect(mock.requests).toHaveLength(sentByFirst);
  });

  it("sends the child's first model request while the job's files are fetched; its tools wait for them", async () => {
    const redis = await startRedis();
    const remote = sharedRemote();
    // The shared remote over "ssh": a stand-in ssh that holds the fetch until the test lets it go.
    const release = path.join(remote.root, 'release');
    const ssh = path.join(remote.root, 'held-ssh');
    writeFileSync(ssh, `#!/bin/sh\nwhile [ ! -e '${release}' ]; do sleep 0.02; done\neval "exec $(eval echo \\\${$#})"\n`, {
      mode: 0o755,
    });
    mock.script({ toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }] }, { text: 'read it' });
    const stream = createProvider({ provider: 'anthropic', apiKey: WORKER_KEY, baseURL: mock.anthropicBaseURL, maxRetries: 0 });
    await queue.worker(redis.url, {
      runJob: createWorkerJobRunner({
        cacheDir: path.join(remote.root, 'worker-cache'),
        env: { PATH: process.env.PATH, HOME: process.env.HOME, GIT_SSH_COMMAND: ssh },
        stream,
        model: 'claude-sonnet-4-5',
        maxTokens: 1000,
      }),
    });
    const runner = queue.runner(redis.url, {
      workspaceFor: async () => ({
        remote: `ssh://held${remote.bare}`,
        commit: remote.commit,
        ref: 'refs/outrider-snapshots/sess1/sub-1',
      }),
    });
    const { request, events } = recordingRequest('sub-1');

    const running = runner(request);
    await until(() => mock.requests.length === 1, { what: "the child's first request, its files still held" });
    expect(events.some((e) => e.type === 'tool_end')).toBe(false);
    writeFileSync(release, '');
    const outcome = await running;

    expect(outcome).toMatchObject({ status: 'done', text: 'read it' });
    const read = events.find((e) => e.type === 'tool_end' && e.name === 'read_file');
    expect(read).toMatchObject({ isError: false });
    expect(JSON.stringify(mock.requests[1]!.body)).toContain('the project');
  });
});

describe("a worker's job runner and the job's reasoning effort", () => {
  /** A worker on the mock with its own Anthropic model, its log kept. */
  async function effortWorker(redisUrl: string, remote: { root: string }, model = 'claude-sonnet-4-5') {
    const log: string[] = [];
    const stream = createProvider({ provider: 'anthropic', apiKey: WORKER_KEY, baseURL: mock.anthropicBaseURL, maxRetries: 0 });
    await queue.worker(redisUrl, {
      name: 'build-2',
      onLog: (line) => log.push(line),
      runJob: createWorkerJobRunner({
        cacheDir: path.join(remote.root, 'worker-cache'),
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
        stream,
        model,
        maxTokens: 1000,
      }),
    });
    return log;
  }

  it("runs the child with the effort the job had on the session's side: the worker's requests carry its thinking", async () => {
    const redis = await startRedis();
    const remote = sharedRemote();
    await effortWorker(redis.url, remote);
    mock.script(
      { toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }], thinking: 'Read it first.' },
      { text: 'read it' },
    );
    const runner = queue.runner(redis.url, {
      workspaceFor: async () => ({ remote: remote.bare, commit: remote.commit, ref: 'refs/outrider-snapshots/sess1/sub-1' }),
    });

    const outcome = await runner(recordingRequest('sub-1', { effort: 'high' }).request);

    expect(outcome).toMatchObject({ status: 'done', text: 'read it' });
    expect(mock.requests).toHaveLength(2);
    for (const request of mock.requests) {
      expect(request.body.thinking).toEqual({ type: 'enabled', budget_tokens: 20_000 });
      expect(request.body.max_tokens).toBe(21_000);
    }
  });

  it('refuses a queue entry whose effort is not a level, with a log line, and takes the next job', async () => {
    const redis = await startRedis();
    const remote = sharedRemote();
    const log = await effortWorker(redis.url, remote);
    const client = new Redis(redis.url);
    const jobs = new Queue('jobs', { connection: client, prefix: 'outrider:default' });
    const good = buildPayload({
      remoteId: 'sess1.sub-7.aa',
      sessionId: 'sess1',
      request: { id: 'sub-7', task: 'say hi', mode: 'typed', effort: 'low' },
      definition: builtinDefinitions().find((d) => d.name === 'general')!,
      workspace: { remote: remote.bare, commit: remote.commit, ref: 'refs/outrider-snapshots/sess1/sub-1' },
    });
    mock.script({ text: 'hi' });
    try {
      await jobs.add('sub-agent', { ...good, effort: 'ultra' }, { jobId: 'sess1.sub-7.aa' });
      const runner = queue.runner(redis.url);
      const refused = await runner.attach('sess1.sub-7.aa', recordingRequest('sub-7').request);
      await jobs.add('sub-agent', { ...good, remoteId: 'sess1.sub-8.bb', jobId: 'sub-8' }, { jobId: 'sess1.sub-8.bb' });
      const taken = await runner.attach('sess1.sub-8.bb', recordingRequest('sub-8').request);

      expect(refused).toMatchObject({ status: 'error' });
      expect(refused.error).toBe(
        'refused by worker build-2: invalid payload: effort: one of low, medium, high, max (got "ultra")',
      );
      expect(log).toContain('refused sess1.sub-7.aa: invalid payload: effort: one of low, medium, high, max (got "ultra")');
      expect(taken).toMatchObject({ status: 'done', text: 'hi' });
      expect(mock.requests.map((r) => r.body.thinking)).toEqual([{ type: 'enabled', budget_tokens: 4_096 }]);
    } finally {
      await jobs.close();
      client.disconnect();
    }
  });
});
