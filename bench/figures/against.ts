/**
 * `--against <bin>`: this build side by side with another one (`node bench/baseline.mjs <ref>`
 * builds one), so a change is measured as a before/after ratio in one run.
 */
import type { BenchContext } from '../lib/context.js';
import { home, outriderEnv, project } from '../lib/fixtures.js';
import { BIN, type Run, runOk } from '../lib/processes.js';
import { interleave, median, pairedRatio } from '../lib/stats.js';
import type { Figure } from '../lib/table.js';
import { loopRunners } from './loop.js';

function compared(ctx: BenchContext, id: string, name: string, unit: string, a: number[], b: number[]): Figure {
  return {
    id,
    name,
    node: ctx.nodeVersion,
    outrider: median(a),
    reference: median(b),
    referenceLabel: 'before',
    unit,
    comparison: 'ratio',
    value: pairedRatio(a, b),
    samples: { outrider: a, reference: b },
  };
}

export function againstFigures(before: string) {
  return async (ctx: BenchContext): Promise<Figure[]> => {
    const figures: Figure[] = [];
    const { dir, files } = project('loop', 10, 1000);
    for (const provider of ['anthropic', 'openai'] as const) {
      ctx.log(`against ${before}: 10-step loop, ${provider}`);
      // A home each: the code cache (bin/code-cache.js) keeps one file per home and drops any
      // other, so two builds sharing one would each find the other's and compile without it.
      const runners = loopRunners(ctx, provider, files, dir, { state: home(`against-${provider}-this`) });
      const beforeRunners = loopRunners(ctx, provider, files, dir, { state: home(`against-${provider}-before`) });
      const pairs = await interleave(
        ctx.pairs * 2,
        () => runners.outrider({}, BIN),
        () => beforeRunners.outrider({}, before),
      );
      for (const [key, what, unit] of [
        ['wallMs', 'wall', 'ms'],
        ['cpuMs', 'CPU', 'ms'],
        ['maxRssMb', 'peak RSS', 'MB'],
      ] as const) {
        const pick = (runs: Run[]) => runs.map((r) => r[key]);
        figures.push(
          compared(
            ctx,
            `against.loop.${provider}.${key}`,
            `10-step loop, ${provider}: ${what}`,
            unit,
            pick(pairs.a),
            pick(pairs.b),
          ),
        );
      }
    }
    ctx.log(`against ${before}: first request and --version`);
    const homes = new Map([
      [BIN, home('against-start-this')],
      [before, home('against-start-before')],
    ]);
    const first = (bin: string) => async () => {
      const state = homes.get(bin)!;
      ctx.mock.reset();
      ctx.mock.script({ text: 'Hello.' });
      const run = await runOk(
        { node: ctx.node, args: [bin, '-p', 'say hello'], cwd: dir, env: outriderEnv(ctx.mock, 'anthropic', state) },
        bin,
      );
      return ctx.mock.requests[0]!.receivedAt - run.spawnedAt;
    };
    const firsts = await interleave(ctx.pairs * 2, first(BIN), first(before));
    figures.push(compared(ctx, 'against.first-request', 'first request reaches the model', 'ms', firsts.a, firsts.b));
    const version = (bin: string) => async () => (await runOk({ node: ctx.node, args: [bin, '--version'] }, bin)).wallMs;
    const versions = await interleave(ctx.pairs * 2, version(BIN), version(before));
    figures.push(compared(ctx, 'against.version', 'outrider --version', 'ms', versions.a, versions.b));
    return figures;
  };
}
