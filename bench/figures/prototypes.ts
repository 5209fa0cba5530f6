/**
 * `--only prototypes` (not in the default run): ideas measured before they land, each as the
 * 10-step loop with the prototype against the same build without it, side by side.
 * http-fetch: the SDKs' fetch over node:http, undici never loaded (bench/prototypes/http-fetch.mjs).
 */
import path from 'node:path';
import type { BenchContext } from '../lib/context.js';
import { home, outriderEnv, project } from '../lib/fixtures.js';
import { BIN, REPO, type Run, runOk } from '../lib/processes.js';
import { interleave, median, pairedDifference, pairedRatio } from '../lib/stats.js';
import type { Figure } from '../lib/table.js';
import { loopRunners } from './loop.js';
import { bareNode } from './start.js';

export async function prototypeFigures(ctx: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  const { dir, files } = project('loop', 10, 1000);
  const long = project('loop100', 99, 2700);
  const preload = ['--import', path.join(REPO, 'bench/prototypes/http-fetch.mjs')];
  const cases = [
    { label: '10-step loop', provider: 'anthropic', files, dir, rounds: ctx.pairs * 2, extraArgs: [] as string[] },
    { label: '10-step loop', provider: 'openai', files, dir, rounds: ctx.pairs * 2, extraArgs: [] },
    { label: '100-step loop', provider: 'anthropic', ...long, rounds: ctx.pairs, extraArgs: ['--max-turns', '200'] },
    { label: '100-step loop', provider: 'openai', ...long, rounds: ctx.pairs, extraArgs: ['--max-turns', '200'] },
  ] as const;
  for (const { label, provider, files, dir, rounds, extraArgs } of cases) {
    ctx.log(`prototype http-fetch: ${label}, ${provider}`);
    const plain = loopRunners(ctx, provider, files, dir, { state: home(`proto-${provider}`), extraArgs: [...extraArgs] });
    const withFetch = loopRunners(ctx, provider, files, dir, {
      state: home(`proto-${provider}`),
      nodeArgs: preload,
      env: { BENCH_HTTP_FETCH_CHECK: '1' },
      extraArgs: [...extraArgs],
    });
    const runs = { a: [] as Run[], b: [] as Run[], ref: [] as Run[] };
    // Three sides, rotated: the prototype, the build as it is, the reference agent.
    const sides = [() => withFetch.outrider(), () => plain.outrider(), plain.reference];
    for (let i = 0; i < rounds + 1; i += 1) {
      for (let k = 0; k < 3; k += 1) {
        const side = (i + k) % 3;
        const run = await sides[side]!();
        if (i === 0) continue;
        if (side === 0 && run.stderr.includes('undici was loaded'))
          throw new Error(`the http-fetch prototype still loaded undici: ${run.stderr}`);
        (side === 0 ? runs.a : side === 1 ? runs.b : runs.ref).push(run);
      }
    }
    for (const [key, what, unit] of [
      ['wallMs', 'wall', 'ms'],
      ['cpuMs', 'CPU', 'ms'],
      ['maxRssMb', 'peak RSS', 'MB'],
    ] as const) {
      const a = runs.a.map((r) => r[key]);
      const b = runs.b.map((r) => r[key]);
      const ref = runs.ref.map((r) => r[key]);
      figures.push(
        {
          id: `proto.http-fetch.${label.split('-')[0]}.${provider}.${key}`,
          name: `http-fetch prototype, ${label}, ${provider}: ${what}`,
          node: ctx.nodeVersion,
          outrider: median(a),
          reference: median(b),
          referenceLabel: 'without',
          unit,
          comparison: 'ratio',
          value: pairedRatio(a, b),
          samples: { outrider: a, reference: b },
        },
        {
          id: `proto.http-fetch.${label.split('-')[0]}.${provider}.${key}.vs-reference`,
          name: `http-fetch prototype, ${label}, ${provider}: ${what} vs reference`,
          node: ctx.nodeVersion,
          outrider: median(a),
          reference: median(ref),
          referenceLabel: 'reference',
          unit,
          comparison: 'ratio',
          value: pairedRatio(a, ref),
          target: label === '10-step loop' ? 1.2 : 1.25,
          samples: { outrider: a, reference: ref },
        },
      );
    }
  }

  ctx.log('prototype http-fetch: first request');
  const state = home('proto-start');
  const firstRequest = async () => {
    ctx.mock.reset();
    ctx.mock.script({ text: 'Hello.' });
    const run = await runOk(
      { node: ctx.node, args: [...preload, BIN, '-p', 'say hello'], cwd: dir, env: outriderEnv(ctx.mock, 'anthropic', state) },
      'outrider -p',
    );
    return ctx.mock.requests[0]!.receivedAt - run.spawnedAt;
  };
  const first = await interleave(ctx.pairs * 2, firstRequest, bareNode(ctx), { warmup: 2 });
  figures.push({
    id: 'proto.http-fetch.first-request',
    name: 'http-fetch prototype: first request reaches the model',
    node: ctx.nodeVersion,
    outrider: median(first.a),
    reference: median(first.b),
    referenceLabel: 'node -e 0',
    unit: 'ms',
    comparison: 'difference',
    value: pairedDifference(first.a, first.b),
    target: 60,
    samples: { outrider: first.a, reference: first.b },
  });
  return figures;
}
