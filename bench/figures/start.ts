/**
 * Target 2, start-up: `outrider --version` against `node -e 0`, and how long after a bare
 * node would have ended the first request reaches the mock (its receive time).
 */
import type { BenchContext } from '../lib/context.js';
import { home, outriderEnv, project } from '../lib/fixtures.js';
import { BIN, runOk } from '../lib/processes.js';
import { interleave, median, pairedDifference, pairedRatio } from '../lib/stats.js';
import type { Figure } from '../lib/table.js';

export function bareNode(ctx: BenchContext) {
  return async () => (await runOk({ node: ctx.node, args: ['-e', '0'] }, 'node -e 0')).wallMs;
}

export async function startFigures(ctx: BenchContext): Promise<Figure[]> {
  ctx.log('start: --version');
  const version = async () => {
    const run = await runOk({ node: ctx.node, args: [BIN, '--version'] }, 'outrider --version');
    if (!/^\d+\.\d+\.\d+/.test(run.stdout)) throw new Error(`outrider --version printed ${JSON.stringify(run.stdout)}`);
    return run.wallMs;
  };
  const versions = await interleave(ctx.pairs * 2, version, bareNode(ctx), { warmup: 2 });

  ctx.log('start: first request');
  const { dir } = project('start', 0, 0);
  const state = home('start');
  const firstRequest = async () => {
    ctx.mock.reset();
    ctx.mock.script({ text: 'Hello.' });
    const run = await runOk(
      { node: ctx.node, args: [BIN, '-p', 'say hello'], cwd: dir, env: outriderEnv(ctx.mock, 'anthropic', state) },
      'outrider -p',
    );
    return ctx.mock.requests[0]!.receivedAt - run.spawnedAt;
  };
  const first = await interleave(ctx.pairs * 2, firstRequest, bareNode(ctx), { warmup: 2 });

  return [
    {
      id: 'start.version',
      name: 'outrider --version',
      node: ctx.nodeVersion,
      outrider: median(versions.a),
      reference: median(versions.b),
      referenceLabel: 'node -e 0',
      unit: 'ms',
      comparison: 'ratio',
      value: pairedRatio(versions.a, versions.b),
      target: 1.1,
      samples: { outrider: versions.a, reference: versions.b },
    },
    {
      id: 'start.first-request',
      name: 'first request reaches the model (anthropic)',
      node: ctx.nodeVersion,
      outrider: median(first.a),
      reference: median(first.b),
      referenceLabel: 'node -e 0',
      unit: 'ms',
      comparison: 'difference',
      value: pairedDifference(first.a, first.b),
      target: 60,
      samples: { outrider: first.a, reference: first.b },
      note: 'spawn to the mock receiving the first request, minus a bare node run beside it',
    },
  ];
}
