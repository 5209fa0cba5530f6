// npm run bench: every figure is a ratio measured side by side in one run (interleaved pairs,
// medians of the per-pair ratios), printed as one table and kept in bench/results/. Figures
// are printed, never asserted. `--worker <mode>` runs an in-process figure (bench/worker.ts).
//
//   npm run bench [-- --quick] [--only loop,start,...] [--node <path>] [--readme] [--no-save]
//   npm run bench -- --against <bin>    this build beside another (node bench/baseline.mjs <ref>)
//   npm run bench -- --capture-fanout [--readme]    the README's text capture of a fan-out
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMockProvider } from '../test/support/mock-provider.js';
import { captureCommand } from './capture-fanout.js';
import { fanOutFigures, manyAgentsFigures } from './figures/agents.js';
import { againstFigures } from './figures/against.js';
import { compileCacheFigures } from './figures/compile-cache.js';
import { compactionFigures, longLoopFigures, ownCpuFigures, resumeFigures } from './figures/growth.js';
import { loopFigures } from './figures/loop.js';
import { prototypeFigures } from './figures/prototypes.js';
import { queueFigures } from './figures/queue.js';
import { rateLimitFigures } from './figures/rate-limit.js';
import { startFigures } from './figures/start.js';
import { tuiFigures } from './figures/tui.js';
import type { BenchContext, FigureGroup } from './lib/context.js';
import { cleanupFixtures } from './lib/fixtures.js';
import { cleanupProbes, REPO } from './lib/processes.js';
import { type Figure, met, renderMarkdown, renderTable } from './lib/table.js';
import { runWorker } from './worker.js';

const GROUPS: Record<string, FigureGroup> = {
  loop: loopFigures,
  start: startFigures,
  fanout: fanOutFigures,
  long: longLoopFigures,
  'own-cpu': ownCpuFigures,
  resume: resumeFigures,
  agents32: manyAgentsFigures,
  compaction: compactionFigures,
  'compile-cache': compileCacheFigures,
  tui: tuiFigures,
  queue: queueFigures,
  'rate-limit': rateLimitFigures,
  // Not in the default run: ideas measured before they land.
  prototypes: prototypeFigures,
};
const OPT_IN = new Set(['prototypes']);

/** Node 24 LTS, fetched by `node bench/fetch-node.mjs` into bench/.node/ (ignored by git). */
const NODE_24 = path.join(REPO, 'bench/.node/node_modules/node/bin/node');

function option(args: string[], name: string): string | undefined {
  return args.includes(name) ? args[args.indexOf(name) + 1] : undefined;
}

function nodeVersion(node: string): string {
  return execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** Replaces the table between the README's bench markers. */
function updateReadme(table: string, header: string): void {
  const file = path.join(REPO, 'README.md');
  const text = readFileSync(file, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  if (!text.includes(start) || !text.includes(end)) throw new Error(`README.md has no ${start} … ${end} markers`);
  const before = text.slice(0, text.indexOf(start) + start.length);
  const after = text.slice(text.indexOf(end));
  writeFileSync(file, `${before}\n${header}\n\n${table}\n${after}`);
}

async function main(args: string[]): Promise<void> {
  const quick = args.includes('--quick');
  const only = option(args, '--only')?.split(',');
  for (const name of only ?? [])
    if (!GROUPS[name]) throw new Error(`unknown figure group ${name}: use ${Object.keys(GROUPS).join(', ')}`);
  const nodes = option(args, '--node')
    ? [option(args, '--node')!]
    : [process.execPath, ...(existsSync(NODE_24) ? [NODE_24] : [])];
  const log = (line: string) => process.stderr.write(`  … ${line}\n`);
  const startLoad = os.loadavg();
  const started = new Date();
  if (!existsSync(NODE_24) && !option(args, '--node'))
    log('Node 24 is not in bench/.node/: run `node bench/fetch-node.mjs` to bench it too');

  const mock = await startMockProvider();
  const figures: Figure[] = [];
  try {
    for (const node of nodes) {
      const ctx: BenchContext = {
        node,
        nodeVersion: nodeVersion(node),
        mock,
        pairs: quick ? 3 : 7,
        log,
      };
      process.stderr.write(`node ${ctx.nodeVersion} (${node})\n`);
      const against = option(args, '--against');
      if (against) {
        figures.push(...(await againstFigures(against)(ctx)));
        continue;
      }
      for (const [name, group] of Object.entries(GROUPS)) {
        if (only ? !only.includes(name) : OPT_IN.has(name)) continue;
        figures.push(...(await group(ctx)));
      }
    }
  } finally {
    await mock.close();
    cleanupProbes();
    cleanupFixtures();
  }

  const endLoad = os.loadavg();
  const cores = os.availableParallelism();
  const load = `load average ${startLoad[0]!.toFixed(2)} at the start, ${endLoad[0]!.toFixed(2)} at the end, ${cores} cores`;
  const missed = figures.filter((f) => met(f) === false).length;
  const header = `outrider bench, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${git(['rev-parse', '--short', 'HEAD'])}: ${load}`;
  console.log(`\n${header}\n`);
  console.log(renderTable(figures));
  console.log(
    `\n${figures.length} figures, ${missed} missed. Ratios are medians of interleaved pairs (outrider and its reference run one after the other, alternating order).`,
  );

  if (!args.includes('--no-save')) {
    const dir = path.join(REPO, 'bench/results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
    const result = {
      date: started.toISOString(),
      commit: git(['rev-parse', 'HEAD']),
      dirty: git(['status', '--porcelain']) !== '',
      machine: {
        cores,
        cpu: os.cpus()[0]?.model,
        loadAverage: { start: startLoad, end: endLoad },
        platform: `${os.platform()} ${os.release()}`,
      },
      quick,
      figures,
    };
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`Saved ${path.relative(REPO, file)}.`);
  }
  if (args.includes('--readme')) {
    updateReadme(renderMarkdown(figures), `_${header}._`);
    console.log('README.md: performance table updated.');
  }
}

const args = process.argv.slice(2);
if (args[0] === '--worker') await runWorker(args.slice(1));
else if (args[0] === '--capture-fanout') await captureCommand(args.slice(1));
else await main(args);
