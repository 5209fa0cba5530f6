/**
 * A session with --queue: its sub-agent jobs go through a private Redis to two `outrider worker`
 * processes (their own homes and keys); the checkout travels through a bare repository (the
 * shared remote). The session is the built binary, headless, against the mock provider.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { barrier } from '../support/barrier.js';
import { useMockProject } from '../support/e2e-project.js';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { exited } from '../support/process.js';
import { useRedis } from '../support/redis.js';
import { git } from '../support/git.js';
import { startQueueWorker } from '../support/queue-worker.js';
import { type LiveCli, runCli, startCli } from '../support/run-cli.js';
import { until } from '../support/until.js';

const t = useMockProject();
const startRedis = useRedis();
const running: LiveCli[] = [];
afterEach(() => {
  for (const cli of running.splice(0)) if (!exited(cli.pid)) cli.signal('SIGKILL');
});

/** The project as a git checkout with one commit and an uncommitted file, and an empty bare remote. */
function projectAndRemote(): string {
  git(t.project, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(t.project, 'README.md'), 'the project\n');
  git(t.project, 'add', '-A');
  git(t.project, 'commit', '-q', '-m', 'first');
  // Not committed: the snapshot a worker gets still has it.
  writeFileSync(path.join(t.project, 'draft.txt'), 'work in progress\n');
  const bare = path.join(mkdtempSync(path.join(os.tmpdir(), 'outrider-e2e-shared-')), 'shared.git');
  git(os.tmpdir(), 'init', '-q', '--bare', bare);
  return bare;
}

const startWorker = (redisUrl: string, name: string): Promise<LiveCli> =>
  startQueueWorker({
    env: t.env,
    redisUrl,
    name,
    args: ['--concurrency', '2', '--permission-mode', 'accept-edits', '--stalled-interval-ms', '500'],
    running,
  });

const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system ?? '').includes('You are a sub-agent');
const jobOf = (r: RecordedRequest) => Number(/JOB (\d+)/.exec(JSON.stringify(r.body.messages[0]))?.[1] ?? 0);
const textOf = (r: RecordedRequest) => JSON.stringify(r.body.messages);
/** Every job_state event a headless events-json run printed. */
const jobStates = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; job?: { id: string; state: string; worker?: string } })
    .flatMap((event) => (event.type === 'job_state' && event.job ? [event.job] : []));

describe('a session whose jobs run on workers (--queue)', () => {
  it('four jobs spread over two workers; each names its worker, sees the uncommitted file, and its branch comes back and merges', async () => {
    const redis = await startRedis();
    const bare = projectAndRemote();
    // No child is answered until each worker holds one: the run finishes only if both work at once.
    const both = barrier(2, { what: 'a first child request from each worker' });
    t.mock.respond(async (r): Promise<Reply> => {
      if (isChild(r)) {
        const n = jobOf(r);
        if (r.body.messages.length === 1) {
          if (both.arrived < 2) await both.arrive();
          return { toolCalls: [{ name: 'read_file', args: { path: 'draft.txt' } }] };
        }
        if (r.body.messages.length === 3)
          return { toolCalls: [{ name: 'write_file', args: { path: `out-${n}.txt`, content: `${n}\n` } }] };
        return { text: `JOB ${n} saw: ${/work in progress/.test(textOf(r)) ? 'the draft' : 'no draft'}` };
      }
      if (r.body.messages.length === 1) {
        return {
          toolCalls: [1, 2, 3, 4].map((n) => ({
            name: 'agent_start',
            args: { task: `JOB ${n}: read the draft`, agent: 'general' },
          })),
        };
      }
      if (!/completed/.test(textOf(r))) return { text: 'waiting' };
      // Told of the ends: it merges one job's branch into the checkout, as for a local worktree job.
      if (!/agent_merge/.test(textOf(r))) return { toolCalls: [{ name: 'agent_merge', args: { id: 'sub-2' } }] };
      return { text: 'all four done' };
    });
    await startWorker(redis.url, 'w-a');
    await startWorker(redis.url, 'w-b');

    const run = await runCli(
      ['-p', 'fan out', '--yolo', '--queue', redis.url, '--queue-remote', bare, '--output-format', 'events-json'],
      { cwd: t.project, env: t.env, timeoutMs: 90_000 },
    );

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    both.assertOpened();
    const ended = jobStates(run.stdout).filter((job) => job.state === 'done');
    expect(ended.map((job) => job.id).sort()).toEqual(['sub-1', 'sub-2', 'sub-3', 'sub-4']);
    expect(new Set(ended.map((job) => job.worker))).toEqual(new Set(['w-a', 'w-b']));
    // Every child read the draft the checkout had uncommitted: the snapshot travelled, not just HEAD.
    const answers = t.mock.requests.filter(isChild).filter((r) => r.body.messages.length === 5);
    expect(answers).toHaveLength(4);
    for (const answer of answers) expect(textOf(answer)).toContain('work in progress');
    // Each job's change is a branch on the shared remote; the snapshot is under the session's own ref.
    const sessionId = readdirSync(path.join(t.home, 'sessions'))[0]!;
    for (const n of [1, 2, 3, 4])
      expect(git(bare, 'show', `refs/heads/outrider/${sessionId}/sub-${n}:out-${n}.txt`)).toBe(`${n}`);
    // One snapshot for the four (started in one batch), under the session's own ref.
    const snapshots = git(bare, 'for-each-ref', '--format=%(refname)', `refs/outrider-snapshots/${sessionId}`).split('\n');
    expect(snapshots).toHaveLength(1);
    // agent_merge applied sub-2's branch to the checkout as uncommitted changes; nothing else changed.
    expect(readFileSync(path.join(t.project, 'out-2.txt'), 'utf8')).toBe('2\n');
    expect(git(t.project, 'status', '--porcelain').split('\n').sort()).toEqual(['?? draft.txt', '?? out-2.txt']);
    expect(git(t.project, 'log', '--format=%s')).toBe('first');
    // The other jobs' branches were fetched into the checkout's repository, to merge when asked.
    expect(git(t.project, 'branch', '--list', 'outrider/*', '--format=%(refname:short)').split('\n').sort()).toEqual(
      [1, 3, 4].map((n) => `outrider/${sessionId}/sub-${n}`),
    );
  });

  it('kill -9 of the session: the jobs go on on their workers, and --continue delivers their ends exactly once', async () => {
    const redis = await startRedis();
    const bare = projectAndRemote();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    t.mock.respond(async (r): Promise<Reply> => {
      if (isChild(r)) {
        await released;
        return { text: `JOB ${jobOf(r)} finished on its worker` };
      }
      if (r.body.messages.length === 1) {
        return {
          toolCalls: [1, 2].map((n) => ({ name: 'agent_start', args: { task: `JOB ${n}: take your time`, agent: 'general' } })),
        };
      }
      return { fault: { kind: 'hang' } };
    });
    await startWorker(redis.url, 'w-a');
    await startWorker(redis.url, 'w-b');
    const queue = ['--queue', redis.url, '--queue-remote', bare];
    const session = startCli(['-p', 'start two', '--yolo', ...queue], { cwd: t.project, env: t.env });
    running.push(session);
    await until(() => t.mock.inFlight(isChild) === 2, {
      what: 'both children in flight on the workers',
      observe: () => ({ stderr: session.stderr(), requests: t.mock.requests.length }),
      timeoutMs: 60_000,
    });
    // Their queue ids are in the store before the session can die.
    const agentsDir = path.join(t.home, 'sessions', readdirSync(path.join(t.home, 'sessions'))[0]!, 'agents');
    await until(
      () => ['sub-1', 'sub-2'].every((id) => readFileSync(path.join(agentsDir, `${id}.jsonl`), 'utf8').includes('remoteId')),
      {
        what: 'both jobs recorded with their queue ids',
      },
    );
    session.signal('SIGKILL');
    await session.exited();
    // The jobs finish while no session follows them.
    release();
    await until(() => t.mock.requests.filter(isChild).length === 2 && t.mock.inFlight(isChild) === 0, {
      what: 'both children answered',
    });

    const parentBefore = t.mock.requests.filter((r) => !isChild(r)).length;
    t.mock.respond((r): Reply => (isChild(r) ? { text: 'not again' } : { text: 'heard of both' }));
    const resumed = await runCli(['-c', '-p', 'what happened?', '--yolo', ...queue, '--output-format', 'json'], {
      cwd: t.project,
      env: t.env,
      timeoutMs: 60_000,
    });

    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout).jobs.map((j: { id: string; status: string }) => [j.id, j.status])).toEqual([
      ['sub-1', 'done'],
      ['sub-2', 'done'],
    ]);
    // No child ran again; each end reached the model once, in the requests of the resumed run.
    expect(t.mock.requests.filter(isChild)).toHaveLength(2);
    const sent = t.mock.requests
      .filter((r) => !isChild(r))
      .slice(parentBefore)
      .map(textOf);
    const last = sent.at(-1)!;
    expect(countNotices(last, 'sub-1')).toBe(1);
    expect(countNotices(last, 'sub-2')).toBe(1);
  });
});

/** How many completion notices in a request's history name `id`. */
function countNotices(history: string, id: string): number {
  return (history.match(new RegExp(`Sub-agents?[^"]*\\b${id}\\b[^"]*completed`, 'g')) ?? []).length;
}
