/**
 * Issue 22's note: six sub-agents in a 429 storm, before rate limits paused the provider (each
 * call retried a 429 on its own, within maxRetries, and a job failed when its retries ran out)
 * and after (one gate per provider: a 429 pauses every call for its retry-after, fewer calls run
 * at once for a while, and a rate limit spends no retry). Tokens spent (the provider's counts of
 * every answered call, parent included) and jobs completed. In process: real sessions, the real
 * SDK, the mock provider, real time (the storm's retry-after is 1 s).
 *
 *   npm run bench -- --only rate-limit --no-save
 */
import { createProvider } from '../../src/core/providers/create.js';
import { usageTokens } from '../../src/core/providers/types.js';
import { openSession } from '../../src/core/session/open-session.js';
import { sessionRateLimit } from '../../src/core/session/session-parts.js';
import type { MockProvider, RecordedRequest, Reply } from '../../test/support/mock-provider.js';
import type { BenchContext } from '../lib/context.js';
import { home, outriderEnv, project } from '../lib/fixtures.js';
import { median } from '../lib/stats.js';
import type { Figure } from '../lib/table.js';
import { fanOutResponder } from './agents.js';

const JOBS = 6;
/** Model calls per sub-agent: three reads, then its report. */
const STEPS = 4;

/** Which requests the provider refuses with 429 (retry-after: 1). */
export type Storm =
  /** Every `n`th request that arrives. */
  | { kind: 'every'; n: number }
  /** All past `perSecond` requests in the last second (a provider's request-rate limit). */
  | { kind: 'window'; perSecond: number };

export interface StormResult {
  completed: number;
  failed: number;
  /** Every token the provider counted for answered calls (429s cost none). */
  tokens: number;
  /** Of those, the tokens of jobs that failed. */
  wastedTokens: number;
  requests: number;
  refused: number;
  wallMs: number;
}

function refuser(storm: Storm): () => boolean {
  let count = 0;
  const recent: number[] = [];
  return () => {
    count += 1;
    if (storm.kind === 'every') return count % storm.n === 0;
    const now = Date.now();
    while (recent.length > 0 && recent[0]! <= now - 1000) recent.shift();
    if (recent.length >= storm.perSecond) return true;
    recent.push(now);
    return false;
  };
}

/** One 6-job fan-out under `storm`, with the provider's rate-limit gate (after) or without it (before). */
export async function stormRun(mock: MockProvider, options: { gate: boolean; storm: Storm; name: string }): Promise<StormResult> {
  const { dir } = project(`storm-${options.name}`, JOBS, 800);
  const state = home(`storm-${options.name}`);
  const answer = fanOutResponder({ children: JOBS, childSteps: STEPS });
  const refuse = refuser(options.storm);
  let refused = 0;
  mock.reset();
  mock.respond((request: RecordedRequest): Reply | Promise<Reply> => {
    if (!refuse()) return answer(request);
    refused += 1;
    return { fault: { kind: 'status', status: 429, retryAfter: 1, message: 'Rate limit reached' } };
  });
  const flags = { agents: { maxConcurrent: JOBS, approve: 'never' as const } };
  const stream = createProvider({
    provider: 'anthropic',
    apiKey: 'bench-key-0000',
    baseURL: mock.anthropicBaseURL,
    rateLimit: options.gate ? sessionRateLimit(flags, { fallback: false }) : false,
  });
  const started = Date.now();
  const opened = await openSession({ cwd: dir, env: outriderEnv(mock, 'anthropic', state), headless: true, flags, stream });
  try {
    const signal = new AbortController().signal;
    await opened.session.submit('Read the six files with sub-agents, one each.', signal);
    // As headless does: wait for the jobs, then a turn that hands the parent their notices.
    while (await opened.waitForAgents(signal)) await opened.session.submit(undefined, signal);
    const jobs = opened.jobs();
    const failed = jobs.filter((job) => job.state !== 'done');
    return {
      completed: jobs.length - failed.length,
      failed: failed.length,
      tokens: usageTokens(opened.totals()),
      wastedTokens: failed.reduce((sum, job) => sum + usageTokens(job.usage), 0),
      requests: mock.requests.length,
      refused,
      wallMs: Date.now() - started,
    };
  } finally {
    await opened.close();
  }
}

/**
 * The storm (one request in three refused), and a provider's request-rate limit that
 * six sub-agents overrun at 2 and at 1 request a second: the last is where retries run out.
 */
const STORMS: { id: string; label: string; storm: Storm }[] = [
  { id: 'every3', label: '1 request in 3 refused', storm: { kind: 'every', n: 3 } },
  { id: 'window2', label: 'over 2 requests a second refused', storm: { kind: 'window', perSecond: 2 } },
  { id: 'window1', label: 'over 1 request a second refused', storm: { kind: 'window', perSecond: 1 } },
];

export async function rateLimitFigures(ctx: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  // Slow by design (each storm sits out retry-afters of 1 s, about 75 s a round): 3 rounds, 1 with --quick.
  const runs = ctx.pairs > 3 ? 3 : 1;
  for (const { id, label, storm } of STORMS) {
    const before: StormResult[] = [];
    const after: StormResult[] = [];
    for (let i = 0; i < runs; i += 1) {
      ctx.log(`rate-limit: ${JOBS} sub-agents × ${STEPS} calls, ${label}, run ${i + 1}/${runs}`);
      before.push(await stormRun(ctx.mock, { gate: false, storm, name: `${id}-before-${i}` }));
      after.push(await stormRun(ctx.mock, { gate: true, storm, name: `${id}-after-${i}` }));
    }
    const pick = (results: StormResult[], key: keyof StormResult) => median(results.map((r) => r[key]));
    const note = (results: StormResult[]) =>
      results
        .map(
          (r) =>
            `${r.completed}/${JOBS} done, ${r.tokens} tok (${r.wastedTokens} on failed jobs), ${r.requests} requests, ${r.refused} refused, ${r.wallMs} ms`,
        )
        .join('; ');
    figures.push(
      {
        id: `rate-limit.${id}.completed`,
        name: `429 storm (${label}): sub-agents completed of ${JOBS}`,
        node: ctx.nodeVersion,
        outrider: pick(after, 'completed'),
        reference: pick(before, 'completed'),
        referenceLabel: 'before the gate',
        unit: '',
        comparison: 'equal',
        value: pick(after, 'completed') === JOBS ? 1 : 0,
        target: 1,
        samples: { outrider: after.map((r) => r.completed), reference: before.map((r) => r.completed) },
        note: `after: ${note(after)} | before: ${note(before)}`,
      },
      {
        id: `rate-limit.${id}.tokens`,
        name: `429 storm (${label}): tokens spent`,
        node: ctx.nodeVersion,
        outrider: pick(after, 'tokens'),
        reference: pick(before, 'tokens'),
        referenceLabel: 'before the gate',
        unit: 'tok',
        comparison: 'ratio',
        value: pick(after, 'tokens') / pick(before, 'tokens'),
        samples: { outrider: after.map((r) => r.tokens), reference: before.map((r) => r.tokens) },
      },
    );
  }
  return figures;
}
