import { describe, expect, it } from 'vitest';
import { SessionBudget } from '../../../src/core/jobs/budget.js';
import { RequestSizer } from '../../../src/core/jobs/call-estimate.js';
import { type ChildOutcome, type ChildRunner, JobManager } from '../../../src/core/jobs/job-manager.js';
import type { Job, JobBudget } from '../../../src/core/jobs/job-types.js';
import { SessionLedger } from '../../../src/core/jobs/ledger.js';
import type { CallAdmission } from '../../../src/core/loop/agent-loop.js';
import { costOf, modelInfo } from '../../../src/core/providers/models.js';
import { type ModelRequest, type Usage, emptyUsage } from '../../../src/core/providers/types.js';
import { FakeClock, settle } from '../../support/fake-clock.js';

const MODEL = 'claude-sonnet-4-5';
const request = (text = 'find the parser', maxTokens = 1000): ModelRequest => ({
  model: MODEL,
  system: 'You are a sub-agent.',
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  tools: [],
  maxTokens,
});
/** The worst case the budget holds for `request()`: its input at 4 bytes a token, and all of max_tokens. */
const estimateOf = (r: ModelRequest) => {
  const e = new RequestSizer().estimate(r);
  return e.input + e.output;
};

const priced = (usage: Usage, model?: string) => costOf(usage, modelInfo(model ?? MODEL));
const job = (id: string, over: Partial<Job> = {}): Job => ({
  id,
  number: Number(id.split('-')[1]!.split('.').at(-1)),
  state: 'running',
  definition: 'explore',
  mode: 'typed',
  task: 't',
  createdAt: 0,
  turns: 0,
  toolCalls: 0,
  contextTokens: 0,
  usage: emptyUsage(),
  model: MODEL,
  ...(id.includes('.') ? { owner: id.slice(0, id.lastIndexOf('.')), depth: 2 } : {}),
  ...over,
});
const tokens = (n: number): Usage => ({ input: n, output: 0, cacheRead: 0, cacheWrite: 0 });
const refused = (a: CallAdmission) => ('refused' in a ? a.refused : undefined);

function budget(caps: { maxSessionTokens?: number; maxSessionCostUsd?: number } = {}) {
  const ledger = new SessionLedger();
  return { ledger, budget: new SessionBudget({ ledger, caps, costOf: priced }) };
}

describe('the cost of a call, estimated before it is made', () => {
  it('counts the request as sent, 4 bytes a token, plus its whole max_tokens', () => {
    const r = request('x'.repeat(4000), 2000);
    const bytes = Buffer.byteLength(JSON.stringify(r.messages[0]!.content)) + Buffer.byteLength(r.system) + 2;
    expect(new RequestSizer().estimate(r)).toEqual({ input: Math.ceil(bytes / 4), output: 2000 });
  });

  it('a huge body counts in full: a 1 MB task is a quarter of a million tokens before any answer', () => {
    const huge = request('y'.repeat(1024 * 1024), 8192);
    expect(new RequestSizer().estimate(huge).input).toBeGreaterThan(262_144);
    const { budget: b } = budget();
    const jobs = [job('sub-1', { budget: { maxTokens: 200_000 } })];
    expect(refused(b.admitCall('sub-1', huge, jobs))).toMatch(
      /^budget: tokens reached \(the next call, up to \d+ tokens, would pass the cap of 200000 by \d+; 0 used\)$/,
    );
  });
});

describe('SessionBudget.admitCall: caps that refuse before they spend', () => {
  it("refuses the call that would pass the job's own cap, naming the cap and by how much", () => {
    const { budget: b } = budget();
    const e = estimateOf(request());
    const jobs = [job('sub-1', { budget: { maxTokens: 5000 }, usage: tokens(5000 - e + 1) })];
    expect(refused(b.admitCall('sub-1', request(), jobs))).toBe(
      `budget: tokens reached (the next call, up to ${e} tokens, would pass the cap of 5000 by 1; ${5000 - e + 1} used)`,
    );
    // One token less used and it fits exactly.
    jobs[0]!.usage = tokens(5000 - e);
    expect(refused(b.admitCall('sub-1', request(), jobs))).toBeUndefined();
  });

  it("judges an owner's cap over its whole subtree, a nested job with no cap of its own included", () => {
    const { budget: b } = budget();
    const e = estimateOf(request());
    const jobs = [job('sub-2', { budget: { maxTokens: 3 * e }, usage: tokens(e) }), job('sub-2.1', { usage: tokens(e + 10) })];
    expect(refused(b.admitCall('sub-2.1', request(), jobs))).toBe(
      `budget: tokens reached (the next call, up to ${e} tokens, would pass sub-2's cap of ${3 * e} by 10; ${2 * e + 10} used by sub-2 and its sub-agents)`,
    );
  });

  it('prices the worst case at the job model: a dollar cap refuses a call whose output alone could pass it', () => {
    const { budget: b } = budget();
    // 8,192 tokens of output at $15 a million is $0.12: more than the $0.10 cap before any input.
    const jobs = [job('sub-1', { budget: { maxCostUsd: 0.1 } })];
    expect(refused(b.admitCall('sub-1', request('hi', 8192), jobs))).toMatch(
      /^budget: cost reached \(the next call, up to \$0\.12\d\d, would pass the cap of \$0\.1000 by \$0\.02\d\d; \$0\.0000 used\)$/,
    );
    expect(refused(b.admitCall('sub-1', request('hi', 1000), jobs))).toBeUndefined();
  });

  it("refuses the call that would pass the session's budget, naming how the user raises it", () => {
    const { budget: b, ledger } = budget({ maxSessionTokens: 10_000 });
    ledger.addParent(tokens(9_000));
    const reason = refused(b.admitCall('sub-1', request(), [job('sub-1')]));
    expect(reason).toMatch(
      /^budget: session tokens reached \(the next call, up to \d+ tokens, would pass the session budget of 10000 by \d+; 9000 used/,
    );
    expect(reason).toContain('--max-budget-tokens or agents.maxSessionTokens');
  });

  it('holds an admitted call until its usage is counted, so two calls at once cannot both take the last room', () => {
    const e = estimateOf(request());
    const { budget: b } = budget({ maxSessionTokens: 2 * e - 1 });
    const jobs = [job('sub-1'), job('sub-2')];
    const first = b.admitCall('sub-1', request(), jobs);
    expect(refused(first)).toBeUndefined();
    expect(refused(b.admitCall('sub-2', request(), jobs))).toMatch(/^budget: session tokens reached/);
    // The first call used less than its worst case: once counted, the room it did not use is there again.
    b.record('sub-1', tokens(100), jobs);
    jobs[0]!.usage = tokens(100);
    expect(refused(b.admitCall('sub-2', request(), jobs))).toBeUndefined();
  });

  it('a call that failed gives its hold back when released; a stale release does not drop a newer hold', () => {
    const e = estimateOf(request());
    const { budget: b } = budget({ maxSessionTokens: e });
    const jobs = [job('sub-1'), job('sub-2')];
    const first = b.admitCall('sub-1', request(), jobs) as { release: () => void };
    expect(refused(b.admitCall('sub-2', request(), jobs))).toBeDefined();
    first.release();
    const again = b.admitCall('sub-1', request(), jobs);
    expect(refused(again)).toBeUndefined();
    first.release();
    expect(refused(b.admitCall('sub-2', request(), jobs))).toBeDefined();
  });
});

describe('SessionBudget.capsForStart: a nested job draws from what its owner has left', () => {
  it("narrows a nested job's caps to its owner's remaining tokens and dollars", () => {
    const { budget: b } = budget();
    const jobs = [job('sub-1', { budget: { maxTokens: 50_000, maxCostUsd: 1 }, usage: tokens(20_000) })];
    const settled = b.capsForStart({ maxTokens: 40_000, maxTurns: 5 }, { owner: 'sub-1', model: MODEL }, jobs);
    expect(settled).toEqual({ caps: { maxTokens: 30_000, maxTurns: 5, maxCostUsd: 1 - 0.06 } });
  });

  it('refuses a start when the owner has nothing left', () => {
    const { budget: b } = budget();
    const jobs = [job('sub-1', { budget: { maxTokens: 1000 }, usage: tokens(1000) })];
    expect(b.capsForStart({}, { owner: 'sub-1', model: MODEL }, jobs)).toEqual({
      refused:
        "no budget left for a sub-agent: sub-1's cap of 1000 tokens (counting its sub-agents) is spent; finish the task yourself",
    });
  });

  it('an unpriced model under a dollar cap is refused at start, saying how to price it or cap it in tokens', () => {
    const { budget: b } = budget();
    const own = b.capsForStart({ maxCostUsd: 0.5 }, { model: 'claude-experimental-9' }, []);
    expect(own).toEqual({
      refused:
        'no price is known for model "claude-experimental-9", so its dollar cap ($0.5000) cannot be kept: the user can give its prices ' +
        'in settings (models["claude-experimental-9"].inputPrice and outputPrice); or cap the sub-agent in tokens (max_tokens) and not in dollars',
    });
    const session = budget({ maxSessionCostUsd: 5 }).budget.capsForStart({}, { model: 'claude-experimental-9' }, []);
    expect(session).toMatchObject({ refused: expect.stringContaining("the session's dollar budget ($5.00) cannot be kept") });
    // Capped in tokens only, it starts.
    expect(b.capsForStart({ maxTokens: 1000 }, { model: 'claude-experimental-9' }, [])).toEqual({ caps: { maxTokens: 1000 } });
  });

  it('says what is left of the session budget', () => {
    const { budget: b, ledger } = budget({ maxSessionTokens: 1_000_000, maxSessionCostUsd: 5 });
    ledger.addParent(tokens(200_000));
    expect(b.sessionLeft([])).toBe('Session budget left: 800k of 1.0M tokens, $4.40 of $5.00.');
  });
});

/**
 * Jobs that call the model in rounds the test releases: each call is admitted (or refused) as
 * the job reaches it, and all calls of one round are admitted before any of them is answered.
 */
function roundRunner(rounds: Promise<void>[], usagePerCall: number) {
  const made: string[] = [];
  const run: ChildRunner = async (req): Promise<ChildOutcome> => {
    for (let call = 0; ; call += 1) {
      const admission = req.admitCall!(request());
      if ('refused' in admission) return { status: 'error', text: 'what it had', error: admission.refused };
      made.push(req.id);
      await rounds[call];
      req.onEvent({ type: 'usage', usage: tokens(usagePerCall), total: tokens(usagePerCall) });
      admission.release();
    }
  };
  return { run, made };
}

function gates(n: number) {
  const opens: (() => void)[] = [];
  const rounds = Array.from({ length: n }, () => new Promise<void>((resolve) => opens.push(resolve)));
  return { rounds, open: async (i: number) => (opens[i]!(), await settle()) };
}

describe('JobManager: two jobs crossing a shared cap at once make exactly the calls that fit', () => {
  it('the session budget: 3.5 calls of room make 3 calls, whichever job gets there first', async () => {
    const e = estimateOf(request());
    const ledger = new SessionLedger();
    const b = new SessionBudget({ ledger, caps: { maxSessionTokens: 3 * e + Math.floor(e / 2) }, costOf: priced });
    const { rounds, open } = gates(3);
    const runner = roundRunner(rounds, e);
    const manager = new JobManager({ run: runner.run, budget: b });
    manager.start('a');
    manager.start('b');
    await settle();
    // Both first calls are under way at once: 2 of the 3.5.
    expect(runner.made).toEqual(['sub-1', 'sub-2']);
    await open(0);
    await open(1);
    await open(2);
    await manager.idle();
    expect(runner.made).toHaveLength(3);
    for (const j of manager.list())
      expect(j).toMatchObject({ state: 'error', error: expect.stringMatching(/^budget: session tokens reached/) });
    expect(ledger.totalTokens()).toBe(3 * e);
  });

  it("an owner's cap: its two sub-agents share it, and neither waits on anything once it is reached", async () => {
    const e = estimateOf(request());
    const { rounds, open } = gates(3);
    const children = roundRunner(rounds, e);
    const clock = new FakeClock();
    const run: ChildRunner = async (req) => {
      if (req.id.includes('.')) return children.run(req);
      manager.start('x', { owner: req.id });
      manager.start('y', { owner: req.id });
      // The owner waits for them as agent_poll would.
      await Promise.all(['sub-1.1', 'sub-1.2'].map((id) => manager.poll(id, new AbortController().signal)));
      return { status: 'done', text: 'both ended' };
    };
    // Called only once the manager exists.
    const manager: JobManager = new JobManager({
      run,
      budget: new SessionBudget({ ledger: new SessionLedger(), caps: {}, costOf: priced }),
      maxDepth: 2,
      now: clock.now,
      timers: clock,
    });
    manager.start('owner', { budget: { maxTokens: 3 * e + Math.floor(e / 2) } });
    await settle();
    expect(manager.get('sub-1.1').budget).toEqual({ maxTokens: 3 * e + Math.floor(e / 2) });
    await open(0);
    await open(1);
    await open(2);
    await manager.idle();
    expect(children.made).toHaveLength(3);
    expect(manager.get('sub-1.1').error ?? manager.get('sub-1.2').error).toMatch(
      /would pass sub-1's cap of \d+ by \d+; \d+ used by sub-1 and its sub-agents/,
    );
    expect(manager.get('sub-1')).toMatchObject({ state: 'done', result: 'both ended' });
  });
});

describe('JobManager: caps at start', () => {
  const caps = (b: JobBudget | undefined) => b;

  it("takes agent_start's caps within its definition's: lower ones are kept, higher ones are not", () => {
    const manager = new JobManager({
      run: () => new Promise(() => {}),
      capsFor: () => ({ maxTurns: 10, maxTokens: 1_000_000, maxDurationMs: 300_000 }),
    });
    expect(caps(manager.start('a', { budget: { maxTurns: 3, maxToolCalls: 7 } }).budget)).toEqual({
      maxTurns: 3,
      maxTokens: 1_000_000,
      maxDurationMs: 300_000,
      maxToolCalls: 7,
    });
    expect(manager.start('b', { budget: { maxTurns: 500, maxDurationMs: 3_600_000 } }).budget).toMatchObject({
      maxTurns: 10,
      maxDurationMs: 300_000,
    });
  });

  it('a nested job runs no longer than its owner has left, on the injected clock', async () => {
    const clock = new FakeClock();
    let nested: Job | undefined;
    const run: ChildRunner = async (req) => {
      if (req.id === 'sub-1') {
        clock.advance(45_000);
        nested = manager.start('inner', { owner: 'sub-1', budget: { maxDurationMs: 120_000 } });
      }
      return new Promise(() => {});
    };
    const manager: JobManager = new JobManager({ run, maxDepth: 2, now: clock.now, timers: clock });
    manager.start('outer', { budget: { maxDurationMs: 60_000 } });
    await settle();
    expect(nested?.budget).toEqual({ maxDurationMs: 15_000 });
  });
});
