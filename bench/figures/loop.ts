/**
 * Target 1, the loop: the 10-step headless loop (one read_file per step, a zero-latency
 * scripted model) against the reference agent doing the same requests, with each SDK, and the
 * OpenAI provider on the Responses API too (the reference agent speaks Chat Completions only:
 * that run is its floor). Also the request-shape figures: fixed bytes per request and
 * prompt-cache prefixes (Messages and Responses).
 */
import type { BenchContext } from '../lib/context.js';
import { type Provider, home, outriderEnv, project, referenceArgs, referenceEnv, scriptReads } from '../lib/fixtures.js';
import { BIN, type Run, runOk } from '../lib/processes.js';
import { interleave, median, pairedRatio } from '../lib/stats.js';
import type { Figure } from '../lib/table.js';

const PROMPT = 'read the ten files one by one';
/** outrider on OpenAI's Responses API: a model meant for it, the API asked for (the mock is not api.openai.com). */
const RESPONSES_ARGS = ['--model', 'gpt-5', '--settings', JSON.stringify({ openai: { api: 'responses' } })];

/** One outrider run and one reference run of a read-per-step loop, as a pair of runners. */
export function loopRunners(
  ctx: BenchContext,
  provider: Provider,
  files: string[],
  dir: string,
  options: { state: string; extraArgs?: string[]; env?: Record<string, string>; bin?: string; nodeArgs?: string[] },
) {
  const outrider = async (env: Record<string, string> = {}, bin = options.bin ?? BIN): Promise<Run> => {
    ctx.mock.reset();
    scriptReads(ctx.mock, files);
    const run = await runOk(
      {
        node: ctx.node,
        args: [
          ...(options.nodeArgs ?? []),
          bin,
          '-p',
          PROMPT,
          '--output-format',
          'json',
          '--provider',
          provider,
          ...(options.extraArgs ?? []),
        ],
        cwd: dir,
        env: { ...outriderEnv(ctx.mock, provider, options.state), ...options.env, ...env },
        probe: true,
      },
      `outrider (${provider}, ${files.length} steps)`,
    );
    checkConsumed(ctx, 'outrider');
    return run;
  };
  const reference = async (): Promise<Run> => {
    ctx.mock.reset();
    scriptReads(ctx.mock, files);
    const run = await runOk(
      { node: ctx.node, args: referenceArgs(ctx.mock, provider, PROMPT), cwd: dir, env: referenceEnv(provider), probe: true },
      `the reference agent (${provider})`,
    );
    checkConsumed(ctx, 'the reference agent');
    return run;
  };
  return { outrider, reference };
}

function checkConsumed(ctx: BenchContext, who: string): void {
  if (ctx.mock.pending() !== 0) throw new Error(`${who} stopped with ${ctx.mock.pending()} scripted replies left`);
}

/** wall, CPU and peak RSS figures of one side-by-side comparison. */
export function triple(
  ctx: BenchContext,
  id: string,
  label: string,
  pairs: { a: Run[]; b: Run[] },
  targets: { wall: number; cpu: number; rss?: number },
): Figure[] {
  const pick = (runs: Run[], key: 'wallMs' | 'cpuMs' | 'maxRssMb') => runs.map((r) => r[key]);
  const figure = (key: 'wallMs' | 'cpuMs' | 'maxRssMb', what: string, unit: string, target: number): Figure => ({
    id: `${id}.${what.replace(/ .*/, '').toLowerCase()}`,
    name: `${label}: ${what}`,
    node: ctx.nodeVersion,
    outrider: median(pick(pairs.a, key)),
    reference: median(pick(pairs.b, key)),
    referenceLabel: 'reference',
    unit,
    comparison: 'ratio',
    value: pairedRatio(pick(pairs.a, key), pick(pairs.b, key)),
    target,
    samples: { outrider: pick(pairs.a, key), reference: pick(pairs.b, key) },
  });
  return [
    figure('wallMs', 'wall', 'ms', targets.wall),
    figure('cpuMs', 'CPU', 'ms', targets.cpu),
    ...(targets.rss !== undefined ? [figure('maxRssMb', 'peak RSS', 'MB', targets.rss)] : []),
  ];
}

/** Whether each Responses request extends the previous one: instructions and tools the same, the input only grown. */
function responsesPrefixFigure(ctx: BenchContext): Figure {
  const requests = ctx.mock.requests;
  let prefixOk = requests.length > 1 && requests.every((r) => r.path === '/v1/responses');
  for (let i = 1; i < requests.length; i += 1) {
    const before = requests[i - 1]!.body as { instructions: unknown; tools: unknown; input: unknown[] };
    const after = requests[i]!.body as { instructions: unknown; tools: unknown; input: unknown[] };
    prefixOk &&=
      JSON.stringify(before.instructions) === JSON.stringify(after.instructions) &&
      JSON.stringify(before.tools) === JSON.stringify(after.tools) &&
      JSON.stringify(after.input.slice(0, before.input.length)) === JSON.stringify(before.input);
  }
  return {
    id: 'request.prefix.responses',
    name: `each Responses request extends the previous (${requests.length} requests)`,
    node: ctx.nodeVersion,
    outrider: prefixOk ? 1 : 0,
    reference: 1,
    referenceLabel: 'prompt caches hit',
    unit: '',
    comparison: 'equal',
    value: prefixOk ? 1 : 0,
    target: 1,
  };
}

const withoutCacheMarks = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (key, v: unknown) => (key === 'cache_control' ? undefined : v));

export async function loopFigures(ctx: BenchContext): Promise<Figure[]> {
  const { dir, files } = project('loop', 10, 1000);
  const figures: Figure[] = [];
  for (const provider of ['anthropic', 'openai'] as const) {
    ctx.log(`loop: 10 steps, ${provider}`);
    const runners = loopRunners(ctx, provider, files, dir, { state: home(`loop-${provider}`) });
    const pairs = await interleave(ctx.pairs, () => runners.outrider(), runners.reference);
    figures.push(...triple(ctx, `loop.${provider}`, `10-step loop, ${provider}`, pairs, { wall: 1.2, cpu: 1.2, rss: 1.2 }));
  }
  ctx.log('loop: 10 steps, openai on the Responses API');
  const responses = loopRunners(ctx, 'openai', files, dir, { state: home('loop-responses'), extraArgs: RESPONSES_ARGS });
  const responsePairs = await interleave(ctx.pairs, () => responses.outrider(), responses.reference);
  figures.push(
    ...triple(ctx, 'loop.openai-responses', '10-step loop, openai Responses (floor: its Chat run)', responsePairs, {
      wall: 1.2,
      cpu: 1.2,
      rss: 1.2,
    }),
  );
  await responses.outrider();
  figures.push(responsesPrefixFigure(ctx));

  // What every request pays for, and whether each request extends the previous one.
  const runners = loopRunners(ctx, 'anthropic', files, dir, { state: home('loop-shape') });
  await runners.outrider();
  const requests = ctx.mock.requests;
  const first = requests[0]!.body;
  const fixedBytes = Buffer.byteLength(JSON.stringify(first.system)) + Buffer.byteLength(JSON.stringify(first.tools));
  let prefixOk = true;
  for (let i = 1; i < requests.length; i += 1) {
    const before = withoutCacheMarks(requests[i - 1]!.body) as { system: unknown; tools: unknown; messages: unknown[] };
    const after = withoutCacheMarks(requests[i]!.body) as { system: unknown; tools: unknown; messages: unknown[] };
    prefixOk &&=
      JSON.stringify(before.system) === JSON.stringify(after.system) &&
      JSON.stringify(before.tools) === JSON.stringify(after.tools) &&
      JSON.stringify(after.messages.slice(0, before.messages.length)) === JSON.stringify(before.messages);
  }
  figures.push(
    {
      id: 'request.fixed-bytes',
      name: 'system prompt + tool schemas per request',
      node: ctx.nodeVersion,
      outrider: fixedBytes / 1024,
      reference: 10,
      referenceLabel: 'budget',
      unit: 'KB',
      comparison: 'ratio',
      value: fixedBytes / 1024 / 10,
      target: 1,
    },
    {
      id: 'request.prefix',
      name: `each request extends the previous (${requests.length} requests)`,
      node: ctx.nodeVersion,
      outrider: prefixOk ? 1 : 0,
      reference: 1,
      referenceLabel: 'prompt caches hit',
      unit: '',
      comparison: 'equal',
      value: prefixOk ? 1 : 0,
      target: 1,
    },
  );
  return figures;
}
