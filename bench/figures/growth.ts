/**
 * Target 4, growth, each as a large case against a small one: a 100-step loop against the
 * reference, outrider's own CPU per step at 1,000 against 10 history messages, resuming
 * 2,000 against 10 messages (and appending never rewrites the transcript), and compacting a
 * 150k-token history. The 32-sub-agent figures live in agents.ts.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { BenchContext } from '../lib/context.js';
import { home, outriderEnv, project } from '../lib/fixtures.js';
import { makeHistory, storeSession } from '../lib/history.js';
import { BIN, REPO, runOk } from '../lib/processes.js';
import { interleave, median, pairedDifference, pairedRatio } from '../lib/stats.js';
import type { Figure } from '../lib/table.js';
import { loopRunners, triple } from './loop.js';

const half = (ctx: BenchContext) => Math.max(3, Math.ceil(ctx.pairs / 2));

export async function longLoopFigures(ctx: BenchContext): Promise<Figure[]> {
  // 99 reads and the answer: 100 model calls, the reference agent's own step cap.
  const { dir, files } = project('loop100', 99, 2700);
  const figures: Figure[] = [];
  for (const provider of ['anthropic', 'openai'] as const) {
    ctx.log(`growth: 100-step loop, 2.7 KB files, ${provider}`);
    const runners = loopRunners(ctx, provider, files, dir, {
      state: home(`loop100-${provider}`),
      extraArgs: ['--max-turns', '200'],
    });
    const pairs = await interleave(half(ctx), () => runners.outrider(), runners.reference);
    figures.push(
      ...triple(ctx, `loop100.${provider}`, `100-step loop, 2.7 KB files, ${provider}`, pairs, { wall: 1.25, cpu: 1.25 }),
    );
  }
  return figures;
}

async function worker<T>(ctx: BenchContext, args: string[], nodeFlags: string[] = []): Promise<T> {
  const run = await runOk(
    { node: ctx.node, args: ['--expose-gc', ...nodeFlags, path.join(REPO, 'bench/.run.mjs'), '--worker', ...args] },
    `bench worker ${args.join(' ')}`,
  );
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as T;
}

export async function ownCpuFigures(ctx: BenchContext): Promise<Figure[]> {
  ctx.log('growth: own CPU per step at 1,000 and 10 history messages');
  // The worker collects before each measured turn, so that the resume's garbage is not charged
  // to it. With V8's GC helper threads, that collection's concurrent work went on during the
  // turn and was counted in it (process CPU counts every thread), in proportion to the heap:
  // 3–9 ms of a 5–14 ms turn at 1,000 messages on Node 24. With the GC on the main thread the
  // forced collection ends inside gc(), and a collection the turn itself causes still counts.
  const steps = (history: number) => async () =>
    (await worker<{ perStepMs: number }>(ctx, ['steps', '--history', String(history)], ['--single-threaded-gc'])).perStepMs;
  const pairs = await interleave(half(ctx), steps(1000), steps(10), { warmup: 0 });
  return [
    {
      id: 'growth.own-cpu-per-step',
      name: 'own CPU per step, 1,000 vs 10 messages',
      node: ctx.nodeVersion,
      outrider: median(pairs.a),
      reference: median(pairs.b),
      referenceLabel: 'at 10 messages',
      unit: 'ms',
      comparison: 'ratio',
      value: pairedRatio(pairs.a, pairs.b),
      target: 2,
      samples: { outrider: pairs.a, reference: pairs.b },
      note: 'in process, fake model: history conversion included, request serialization and HTTP excluded; median of 9 warm turns of 10 steps, each after a full collection, GC on the main thread',
    },
  ];
}

export async function resumeFigures(ctx: BenchContext): Promise<Figure[]> {
  ctx.log('growth: resume 2,000 and 10 messages');
  const { dir } = project('resume', 0, 0);
  const sessions = [2000, 10].map((count) => {
    const state = home(`resume-${count}`);
    return { state, ...storeSession(state, dir, makeHistory(count, 300)) };
  });
  let appendOnly = true;
  const resume = (session: (typeof sessions)[number]) => async () => {
    const before = readFileSync(session.transcript);
    const inode = statSync(session.transcript).ino;
    ctx.mock.reset();
    ctx.mock.script({ text: 'Resumed.' });
    const run = await runOk(
      {
        node: ctx.node,
        args: [BIN, '-c', '-p', 'one more thing'],
        cwd: dir,
        env: outriderEnv(ctx.mock, 'anthropic', session.state),
      },
      'outrider -c',
    );
    const after = readFileSync(session.transcript);
    // Appending only: the same file, its old bytes untouched, something added.
    appendOnly &&=
      statSync(session.transcript).ino === inode &&
      after.length > before.length &&
      after.subarray(0, before.length).equals(before);
    return run.wallMs;
  };
  const pairs = await interleave(half(ctx), resume(sessions[0]!), resume(sessions[1]!));
  return [
    {
      id: 'growth.resume',
      name: 'resume a 2,000-message session (-c -p)',
      node: ctx.nodeVersion,
      outrider: median(pairs.a),
      reference: median(pairs.b),
      referenceLabel: '10 messages',
      unit: 'ms',
      comparison: 'difference',
      value: pairedDifference(pairs.a, pairs.b),
      target: 250,
      samples: { outrider: pairs.a, reference: pairs.b },
    },
    {
      id: 'growth.append-only',
      name: 'resumed transcript only appended to',
      node: ctx.nodeVersion,
      outrider: appendOnly ? 1 : 0,
      reference: 1,
      referenceLabel: 'same file, old bytes kept',
      unit: '',
      comparison: 'equal',
      value: appendOnly ? 1 : 0,
      target: 1,
    },
  ];
}

export async function compactionFigures(ctx: BenchContext): Promise<Figure[]> {
  ctx.log('growth: compaction of 150k tokens');
  const runs: { wallMs: number; cpuMs: number }[] = [];
  for (let i = 0; i < half(ctx); i += 1) runs.push(await worker(ctx, ['compaction', '--tokens', '150000']));
  const wall = median(runs.map((r) => r.wallMs));
  return [
    {
      id: 'growth.compaction',
      name: 'compact 150k tokens: own work, cold',
      node: ctx.nodeVersion,
      outrider: wall,
      reference: 100,
      referenceLabel: 'budget',
      unit: 'ms',
      comparison: 'ratio',
      value: wall / 100,
      target: 1,
      samples: { outrider: runs.map((r) => r.wallMs), reference: runs.map((r) => r.cpuMs) },
      note: 'wall of /compact in a fresh process minus the summary call (a fake model); samples.reference holds the CPU',
    },
  ];
}
