/**
 * Jobs on workers (issue 21): 16 sub-agents at 500 ms per model response, one session with 4
 * local slots against the same session sending them to 2 workers × 4 slots through a private
 * Redis; and how much later a queue job's first model request comes than a local job's.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RecordedRequest } from '../../test/support/mock-provider.js';
import { startRedis } from '../../test/support/redis.js';
import { until } from '../../test/support/until.js';
import type { BenchContext } from '../lib/context.js';
import { home, outriderEnv, project } from '../lib/fixtures.js';
import { BIN, runOk } from '../lib/processes.js';
import { interleave, median, pairedDifference, pairedRatio } from '../lib/stats.js';
import type { Figure } from '../lib/table.js';
import { fanOutResponder, isParent } from './agents.js';

const JOBS = 16;
/**
 * Model calls per job, as in the 32-agent figure: a job of 2 calls spends a third of the run in
 * the parent's own calls, which no worker shortens (ideal 0.6×); at 10 the ideal is 0.52×.
 */
const STEPS = 10;

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, {
    cwd,
    stdio: 'ignore',
    env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' },
  });
}

/** `outrider worker` in a home of its own; resolves once it takes jobs. */
async function startWorker(ctx: BenchContext, redisUrl: string, name: string): Promise<ChildProcess> {
  const state = home(`queue-${name}`);
  let stderr = '';
  const worker = spawn(ctx.node, [BIN, 'worker', '--name', name, '--concurrency', '4', '--permission-mode', 'default'], {
    cwd: state,
    env: { PATH: process.env.PATH ?? '', ...outriderEnv(ctx.mock, 'anthropic', state), OUTRIDER_QUEUE_URL: redisUrl },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  worker.stderr!.on('data', (d) => (stderr += d));
  await until(() => stderr.includes('stop with SIGTERM'), { what: `worker ${name} to start`, timeoutMs: 30_000 });
  return worker;
}

/** From the parent's first request to the first child request the mock received. */
function firstChildDelay(requests: readonly RecordedRequest[]): number {
  const parent = requests.find(isParent)!;
  const child = requests.find((r) => !isParent(r))!;
  return child.receivedAt - parent.receivedAt;
}

export async function queueFigures(ctx: BenchContext): Promise<Figure[]> {
  ctx.log(`queue: ${JOBS} sub-agents × ${STEPS} calls at 500 ms per response, 4 local slots against 2 workers × 4`);
  const { dir } = project('queue', 32, 1000);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  // A second Node version's pass finds the same project already committed: nothing new is no failure.
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'bench');
  const bare = path.join(mkdtempSync(path.join(os.tmpdir(), 'outrider-bench-shared-')), 'shared.git');
  git(os.tmpdir(), 'init', '-q', '--bare', bare);
  const redis = await startRedis();
  const workers = [await startWorker(ctx, redis.url, 'bench-a'), await startWorker(ctx, redis.url, 'bench-b')];
  try {
    const run = async (queue: boolean) => {
      ctx.mock.reset();
      ctx.mock.setLatency(500);
      ctx.mock.respond(fanOutResponder({ children: JOBS, childSteps: STEPS }));
      const state = home(queue ? 'queue-session' : 'queue-local');
      const result = await runOk(
        {
          node: ctx.node,
          args: [
            BIN,
            '-p',
            'start the sub-agents and report',
            '--output-format',
            'json',
            '--max-agents',
            '4',
            // A fan-out of more than 3 asks (agents.approve); headless would refuse it.
            '--settings',
            '{"agents":{"approve":"never"}}',
            ...(queue ? ['--queue', redis.url, '--queue-remote', bare] : []),
          ],
          cwd: dir,
          env: outriderEnv(ctx.mock, 'anthropic', state),
          timeoutMs: 120_000,
        },
        `a session with ${JOBS} sub-agents${queue ? ' on the queue' : ''}`,
      );
      const jobs = (JSON.parse(result.stdout.trim().split('\n').at(-1)!).jobs ?? []) as { status: string }[];
      if (jobs.length !== JOBS || jobs.some((j) => j.status !== 'done')) {
        throw new Error(`the run ended with jobs ${JSON.stringify(jobs)}: expected ${JOBS} done`);
      }
      return { wallMs: result.wallMs, firstChildMs: firstChildDelay(ctx.mock.requests) };
    };
    const pairs = await interleave(
      Math.max(3, Math.ceil(ctx.pairs / 2)),
      () => run(true),
      () => run(false),
    );
    const queued = pairs.a;
    const local = pairs.b;
    return [
      {
        id: 'queue.wall',
        name: `${JOBS} sub-agents × ${STEPS} calls, 500 ms each: 2 workers × 4 slots against 4 local slots, wall`,
        node: ctx.nodeVersion,
        outrider: median(queued.map((r) => r.wallMs)),
        reference: median(local.map((r) => r.wallMs)),
        referenceLabel: 'the same session, jobs local',
        unit: 'ms',
        comparison: 'ratio',
        value: pairedRatio(
          queued.map((r) => r.wallMs),
          local.map((r) => r.wallMs),
        ),
        target: 0.55,
      },
      {
        id: 'queue.first-request',
        name: 'agent_start to the first child request: queue against local',
        node: ctx.nodeVersion,
        outrider: median(queued.map((r) => r.firstChildMs)),
        reference: median(local.map((r) => r.firstChildMs)),
        referenceLabel: 'a local job',
        unit: 'ms',
        comparison: 'difference',
        value: pairedDifference(
          queued.map((r) => r.firstChildMs),
          local.map((r) => r.firstChildMs),
        ),
        target: 100,
      },
    ];
  } finally {
    for (const worker of workers) worker.kill('SIGKILL');
    await redis.dispose();
    ctx.mock.reset();
  }
}
