/**
 * Target 5, across Node versions: the effect of the compile cache on a headless run, which uses
 * the headless bundle's own V8 code cache (bin/code-cache.js; Node's module.enableCompileCache()
 * is for the TUI's ES modules). The 10-step loop with the cache warm against the same loop with
 * NODE_DISABLE_COMPILE_CACHE=1, side by side.
 */
import type { BenchContext } from '../lib/context.js';
import { home, project } from '../lib/fixtures.js';
import { interleave, median, pairedRatio } from '../lib/stats.js';
import type { Figure } from '../lib/table.js';
import { loopRunners } from './loop.js';

export async function compileCacheFigures(ctx: BenchContext): Promise<Figure[]> {
  ctx.log('code cache (headless bundle): 10-step loop, cache on and off');
  const { dir, files } = project('loop', 10, 1000);
  const runners = loopRunners(ctx, 'anthropic', files, dir, { state: home('compile-cache') });
  const pairs = await interleave(
    ctx.pairs,
    () => runners.outrider(),
    () => runners.outrider({ NODE_DISABLE_COMPILE_CACHE: '1' }),
  );
  return (['wallMs', 'cpuMs'] as const).map((key) => {
    const on = pairs.a.map((r) => r[key]);
    const off = pairs.b.map((r) => r[key]);
    return {
      id: `compile-cache.${key === 'wallMs' ? 'wall' : 'cpu'}`,
      name: `code cache (headless bundle) on vs off: 10-step loop ${key === 'wallMs' ? 'wall' : 'CPU'}`,
      node: ctx.nodeVersion,
      outrider: median(on),
      reference: median(off),
      referenceLabel: 'cache off',
      unit: 'ms',
      comparison: 'ratio' as const,
      value: pairedRatio(on, off),
      samples: { outrider: on, reference: off },
    };
  });
}
