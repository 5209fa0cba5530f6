/**
 * Target 3, fan-out (4 sub-agents at 500 ms per model response, against the ideal critical
 * path), and the sub-agent half of target 4 (32 concurrent sub-agents × 10 steps: peak RSS,
 * and CPU per child step against one sub-agent alone).
 */
import type { ChildProcess } from 'node:child_process';
import type { RecordedRequest, Reply } from '../../test/support/mock-provider.js';
import type { BenchContext } from '../lib/context.js';
import { home, outriderEnv, project } from '../lib/fixtures.js';
import { BIN, type Run, askCpu, runOk } from '../lib/processes.js';
import { interleave, median, pairedRatio } from '../lib/stats.js';
import type { Figure } from '../lib/table.js';
import { bareNode } from './start.js';

interface WireMessage {
  role: string;
  content: string | { type: string; text?: string }[];
}

export const isParent = (request: RecordedRequest) =>
  (request.body?.tools ?? []).some((t: { name: string }) => t.name === 'agent_start');
const messagesOf = (request: RecordedRequest): WireMessage[] => request.body?.messages ?? [];
const carriesToolResults = (m: WireMessage | undefined) =>
  Array.isArray(m?.content) && m.content.some((b) => b.type === 'tool_result');

interface FanOutPlan {
  children: number;
  /** Model calls per child: `steps - 1` reads, then its report. */
  childSteps: number;
  /** Called on every child request before it is answered (CPU snapshots). */
  onChildRequest?: (count: number) => Promise<void>;
  /** The parent's reply to its own tool results waits for this (keeps the parent out of a measured window). */
  holdParent?: () => Promise<void>;
}

/**
 * The scripted model of a fan-out: the parent starts the children, says it is waiting, and
 * answers once the completion notice comes; each child reads files, then reports.
 */
export function fanOutResponder(plan: FanOutPlan) {
  let childRequests = 0;
  return async (request: RecordedRequest): Promise<Reply> => {
    const messages = messagesOf(request);
    if (isParent(request)) {
      if (messages.length === 1) {
        return {
          toolCalls: Array.from({ length: plan.children }, (_, i) => ({
            name: 'agent_start',
            args: { task: `Read file${i + 1}.ts and report its first line.`, agent: 'explore' },
          })),
        };
      }
      if (carriesToolResults(messages.at(-1))) {
        await plan.holdParent?.();
        return { text: 'The sub-agents are working; I will answer when they report.' };
      }
      return { text: 'Every sub-agent reported.' };
    }
    childRequests += 1;
    await plan.onChildRequest?.(childRequests);
    const task = JSON.stringify(messages[0]?.content ?? '');
    const own = Number(/file(\d+)\.ts/.exec(task)?.[1] ?? 1);
    const done = messages.filter((m) => m.role === 'assistant').length;
    if (done < plan.childSteps - 1)
      return { toolCalls: [{ name: 'read_file', args: { path: `file${((own + done - 1) % 32) + 1}.ts` } }] };
    return { text: `file${own}.ts starts with an export.` };
  };
}

async function runFanOut(
  ctx: BenchContext,
  plan: FanOutPlan,
  options: { latencyMs: number; dir: string; state: string; onSpawn?: (child: ChildProcess) => void },
): Promise<Run> {
  ctx.mock.reset();
  ctx.mock.setLatency(options.latencyMs);
  ctx.mock.respond(fanOutResponder(plan));
  const run = await runOk(
    {
      node: ctx.node,
      args: [
        BIN,
        '-p',
        'start the sub-agents and report',
        '--output-format',
        'json',
        '--max-agents',
        String(Math.max(4, plan.children)),
        // A fan-out of more than 3 asks (agents.approve); headless would refuse it.
        '--settings',
        '{"agents":{"approve":"never"}}',
      ],
      cwd: options.dir,
      env: outriderEnv(ctx.mock, 'anthropic', options.state),
      probe: true,
      ipc: options.onSpawn !== undefined,
      onSpawn: options.onSpawn,
    },
    `outrider with ${plan.children} sub-agents`,
  );
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  const jobs = (result.jobs ?? []) as { status: string }[];
  if (jobs.length !== plan.children || jobs.some((j) => j.status !== 'done')) {
    throw new Error(`the fan-out ended with jobs ${JSON.stringify(jobs)}: expected ${plan.children} done`);
  }
  return run;
}

export async function fanOutFigures(ctx: BenchContext): Promise<Figure[]> {
  ctx.log('fan-out: 4 sub-agents at 500 ms per response');
  const { dir } = project('agents', 32, 1000);
  const state = home('fanout');
  const IDEAL_MS = 2000;
  const fanOut = async () => (await runFanOut(ctx, { children: 4, childSteps: 2 }, { latencyMs: 500, dir, state })).wallMs;
  const pairs = await interleave(Math.max(3, Math.ceil(ctx.pairs / 2)), fanOut, bareNode(ctx));
  ctx.mock.reset();
  const ideal = pairs.b.map((node) => IDEAL_MS + node);
  return [
    {
      id: 'fanout.wall',
      name: '4 sub-agents, 500 ms per response: wall',
      node: ctx.nodeVersion,
      outrider: median(pairs.a),
      reference: median(ideal),
      referenceLabel: 'ideal (2.0 s + node -e 0)',
      unit: 'ms',
      comparison: 'ratio',
      value: pairedRatio(pairs.a, ideal),
      target: 1.15,
      samples: { outrider: pairs.a, reference: ideal },
    },
  ];
}

/** CPU per child step, from the first child request to the last, and the run's peak RSS. */
async function manyChildren(
  ctx: BenchContext,
  children: number,
  dir: string,
  state: string,
): Promise<{ perStepMs: number; run: Run }> {
  const steps = 10;
  let startCpu = 0;
  let endCpu = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let measured: ChildProcess | undefined;
  const plan: FanOutPlan = {
    children,
    childSteps: steps,
    holdParent: () => released,
    onChildRequest: async (count) => {
      if (count === 1) startCpu = await askCpu(measured!);
      if (count === children * steps) {
        endCpu = await askCpu(measured!);
        release();
      }
    },
  };
  const run = await runFanOut(ctx, plan, { latencyMs: 0, dir, state, onSpawn: (child) => (measured = child) });
  return { perStepMs: (endCpu - startCpu) / (children * steps - 1), run };
}

export async function manyAgentsFigures(ctx: BenchContext): Promise<Figure[]> {
  ctx.log('growth: 32 concurrent sub-agents × 10 steps');
  const { dir } = project('agents', 32, 1000);
  const state = home('many-agents');
  const pairs = await interleave(
    Math.max(3, Math.ceil(ctx.pairs / 2)),
    () => manyChildren(ctx, 32, dir, state),
    () => manyChildren(ctx, 1, dir, state),
  );
  ctx.mock.reset();
  const rss = pairs.a.map((p) => p.run.maxRssMb);
  const many = pairs.a.map((p) => p.perStepMs);
  const one = pairs.b.map((p) => p.perStepMs);
  return [
    {
      id: 'agents32.rss',
      name: '32 sub-agents × 10 steps: peak RSS',
      node: ctx.nodeVersion,
      outrider: median(rss),
      reference: 200,
      referenceLabel: 'budget',
      unit: 'MB',
      comparison: 'ratio',
      value: median(rss) / 200,
      target: 1,
      samples: { outrider: rss, reference: pairs.b.map((p) => p.run.maxRssMb) },
    },
    {
      id: 'agents32.cpu-per-step',
      name: '32 sub-agents: CPU per child step',
      node: ctx.nodeVersion,
      outrider: median(many),
      reference: median(one),
      referenceLabel: '1 sub-agent',
      unit: 'ms',
      comparison: 'ratio',
      value: pairedRatio(many, one),
      target: 1.5,
      samples: { outrider: many, reference: one },
      note: 'CPU between the first and the last child request (probe over IPC), per request interval',
    },
  ];
}
