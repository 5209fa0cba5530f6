/**
 * Rate limits pause, they do not kill: a real session whose sub-agents run on the mock provider,
 * spoken to by the real SDK clients, with the provider's gate on a fake clock. One sub-agent's
 * 429 pauses every call of the session (the other sub-agents' and the parent's) until the clock
 * passes the retry-after; a stop during the pause ends that job at once. Order is read from the
 * mock's record and the session's events, never from elapsed time.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../src/core/jobs/job-types.js';
import { createProvider } from '../../../src/core/providers/create.js';
import type { ProviderName } from '../../../src/core/providers/types.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import { openSession } from '../../../src/core/session/open-session.js';
import type { OpenedSession } from '../../../src/core/session/opened-session.js';
import { sessionRateLimit } from '../../../src/core/session/session-parts.js';
import { barrier } from '../../support/barrier.js';
import { FakeClock } from '../../support/fake-clock.js';
import { type MockProvider, type RecordedRequest, type Reply, startMockProvider } from '../../support/mock-provider.js';
import { testDirs } from '../../support/test-session.js';
import { until } from '../../support/until.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
const opened: OpenedSession[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
  mock.reset();
});

const AREAS = ['area-A', 'area-B', 'area-C'];
const RETRY_AFTER_S = 5;
const isChild = (r: RecordedRequest) => JSON.stringify(r.body).includes('You are a sub-agent');
const areaOf = (r: RecordedRequest) => AREAS.find((area) => JSON.stringify(r.body.messages).includes(area));
/** A request that carries tool results (the second of a parent's or a sub-agent's run). */
const afterTools = (r: RecordedRequest) => /"tool_result"|"role":"tool"/.test(JSON.stringify(r.body.messages));
type RateLimitJobEvent = Extract<JobEvent, { type: 'job_event' }>;

async function open(name: ProviderName, clock: FakeClock) {
  const dirs = testDirs();
  const env = name === 'anthropic' ? dirs.env : { OUTRIDER_HOME: dirs.env.OUTRIDER_HOME!, OPENAI_API_KEY: 'sk-test-openai-1234' };
  // The provider as sessionStream makes it, on the fake clock (the gate's pauses run on it).
  const stream = createProvider({
    provider: name,
    apiKey: 'sk-rate-limit-test-01',
    baseURL: name === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL,
    clock,
    rateLimit: sessionRateLimit({}, { fallback: false }),
  });
  const session = await openSession({ ...dirs, env, headless: true, flags: { provider: name }, stream });
  opened.push(session);
  const events: SessionEvent[] = [];
  session.events.subscribe(({ event }) => events.push(event));
  return { session, events };
}

/** The events of job `id` of one type. */
function jobEvents(events: SessionEvent[], id: string, type: string): RateLimitJobEvent['event'][] {
  return events.flatMap((e) => (e.type === 'job_event' && e.jobId === id && e.event.type === type ? [e.event] : []));
}

/** When a request reached the mock: before the session told of the limit, during the pause, after the clock passed it. */
type Phase = 'before' | 'paused' | 'after';

/**
 * The parent starts three sub-agents. Their first requests and the parent's second are held
 * until all four are in flight; then area-A gets a 429 (retry-after 5 s), and the others get a
 * tool call only once the session has told of that limit, so their next calls meet the pause.
 * Every request is recorded with the phase it arrived in.
 */
function storm(session: Promise<{ events: SessionEvent[] }>, phase: () => Phase) {
  const held = barrier(4, { what: "3 first child requests and the parent's second" });
  const first = new Set<string>();
  const arrivals: { who: string; phase: Phase }[] = [];
  const limitTold = async () => {
    const { events } = await session;
    await until(() => jobEvents(events, 'sub-1', 'retry').length > 0, { what: "sub-1's rate-limited retry" });
  };
  mock.respond(async (request): Promise<Reply> => {
    arrivals.push({ who: isChild(request) ? areaOf(request)! : 'parent', phase: phase() });
    if (!isChild(request)) {
      if (!afterTools(request))
        return { toolCalls: AREAS.map((area) => ({ name: 'agent_start', args: { task: `survey ${area}` } })) };
      await held.arrive();
      return { text: 'parent done' };
    }
    const area = areaOf(request)!;
    if (afterTools(request) || first.has(area)) return { text: `report on ${area}` };
    first.add(area);
    await held.arrive();
    if (area === 'area-A') return { fault: { kind: 'status', status: 429, retryAfter: RETRY_AFTER_S, message: 'slow down' } };
    await limitTold();
    return { toolCalls: [{ name: 'list_dir', args: {} }] };
  });
  return { held, arrivals };
}

const waitingUntil = (events: SessionEvent[], id: string, until: number) =>
  jobEvents(events, id, 'rate_limit').some((e) => e.type === 'rate_limit' && e.waiting && e.until === until);

describe.each(['anthropic', 'openai'] as const)('%s: a 429 in one sub-agent', (name) => {
  it('pauses every call of the session for its retry-after; the others send nothing meanwhile, and all complete', async () => {
    const clock = new FakeClock();
    let phase: Phase = 'before';
    const opening = open(name, clock);
    const { held, arrivals } = storm(opening, () => phase);
    const { session, events } = await opening;
    session.events.subscribe(({ event }) => {
      if (event.type === 'job_event' && event.event.type === 'retry' && event.event.rateLimited && phase === 'before')
        phase = 'paused';
    });
    await session.session.submit('survey three areas', new AbortController().signal);
    // sub-2 and sub-3 ran their tool and now wait at the gate, counting the pause down; so does sub-1.
    await until(() => ['sub-1', 'sub-2', 'sub-3'].every((id) => waitingUntil(events, id, RETRY_AFTER_S * 1000)), {
      what: 'all three sub-agents waiting at the gate until 5 s',
    });
    held.assertOpened();
    phase = 'after';
    clock.advance(RETRY_AFTER_S * 1000);
    await until(() => session.jobs().every((job) => job.state === 'done'), {
      what: 'every sub-agent done',
      observe: () => session.jobs().map((job) => `${job.id} ${job.state} ${job.error ?? ''}`),
    });

    // Nothing reached the provider during the pause; after it, sub-1's retry and the others' second calls.
    expect(arrivals.filter((a) => a.phase === 'paused')).toEqual([]);
    expect(
      arrivals
        .filter((a) => a.phase === 'after')
        .map((a) => a.who)
        .sort(),
    ).toEqual(AREAS);
    expect(session.jobs().map((job) => job.error)).toEqual([undefined, undefined, undefined]);
    // sub-1's retry spent none of its retries, and said how long everyone pauses.
    expect(jobEvents(events, 'sub-1', 'retry')).toEqual([
      { type: 'retry', attempt: 1, maxRetries: 4, delayMs: 5000, reason: 'rate limited (429)', rateLimited: true },
    ]);
    expect(jobEvents(events, 'sub-2', 'rate_limit').at(-1)).toEqual({ type: 'rate_limit', waiting: false });
  });

  it('a stop during the pause ends that job at once, before the clock moves', async () => {
    const clock = new FakeClock();
    let phase: Phase = 'before';
    const opening = open(name, clock);
    const { arrivals } = storm(opening, () => phase);
    const { session, events } = await opening;
    await session.session.submit('survey three areas', new AbortController().signal);
    await until(() => waitingUntil(events, 'sub-1', RETRY_AFTER_S * 1000), { what: 'sub-1 waiting at the gate' });

    session.agents.manager.stop('sub-1');
    await until(() => session.jobs().find((job) => job.id === 'sub-1')?.state === 'aborted', { what: 'sub-1 stopped' });
    expect(clock.now()).toBe(0);
    // The others go on after the pause; sub-1 never asked again.
    phase = 'after';
    clock.advance(RETRY_AFTER_S * 1000);
    await until(
      () =>
        session
          .jobs()
          .filter((job) => job.id !== 'sub-1')
          .every((job) => job.state === 'done'),
      {
        what: 'sub-2 and sub-3 done',
      },
    );
    expect(arrivals.filter((a) => a.who === 'area-A')).toHaveLength(1);
  });
});

describe("the session's gate", () => {
  it("grows back to the sub-agents' concurrency plus the parent, waits rateLimitWaitMs, and leaves 529s to --fallback-model", () => {
    expect(sessionRateLimit({}, { fallback: false })).toEqual({ maxConcurrent: 5, overloaded: true });
    expect(sessionRateLimit({ agents: { maxConcurrent: 2 }, rateLimitWaitMs: 60_000 }, { fallback: true })).toEqual({
      maxConcurrent: 3,
      maxWaitMs: 60_000,
      overloaded: false,
    });
  });
});
