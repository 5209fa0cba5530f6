/**
 * Fan-out the user agreed to (`agents.approve`) and `--max-agents 0`, through real sessions
 * whose model is the mock provider, spoken to by the real SDK client.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fanOutEstimate, fanOutPolicy } from '../../../src/core/agents/fan-out-approval.js';
import type { Job } from '../../../src/core/jobs/job-types.js';
import type { ApprovalAnswer, ApprovalRequest } from '../../../src/core/permissions/types.js';
import { emptyUsage } from '../../../src/core/providers/types.js';
import { openSession } from '../../../src/core/session/open-session.js';
import type { OpenedSession, SessionSetup } from '../../../src/core/session/opened-session.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import { type MockProvider, type RecordedRequest, type Reply, startMockProvider } from '../../support/mock-provider.js';
import { testDirs } from '../../support/test-session.js';

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

const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
const parentRequests = () => mock.requests.filter((r) => !isChild(r));
/** The tool results of a request's last message, in order. */
const lastResults = (r: RecordedRequest): { text: string; isError: boolean }[] =>
  (r.body.messages.at(-1).content as { type: string; content: unknown; is_error?: boolean }[])
    .filter((b) => b.type === 'tool_result')
    .map((b) => ({ text: typeof b.content === 'string' ? b.content : JSON.stringify(b.content), isError: b.is_error === true }));

/** A parent that starts `count` sub-agents in one response, then ends its turn; children answer at once. */
function fanOut(count: number) {
  mock.respond((request): Reply => {
    if (isChild(request)) return { text: 'child report' };
    const last = JSON.stringify(request.body.messages.at(-1));
    if (last.includes('tool_result')) return { text: 'done' };
    return { toolCalls: Array.from({ length: count }, (_, i) => ({ name: 'agent_start', args: { task: `area ${i + 1}` } })) };
  });
}

async function open(setup: Partial<SessionSetup> & { headless: boolean }) {
  const dirs = testDirs();
  const session = await openSession({
    ...dirs,
    env: { ...dirs.env, ANTHROPIC_BASE_URL: mock.anthropicBaseURL },
    flags: {},
    ...setup,
  });
  opened.push(session);
  const events: SessionEvent[] = [];
  session.events.subscribe(({ event }) => events.push(event));
  const submit = (prompt: string) => session.session.submit(prompt, new AbortController().signal);
  return { session, events, submit };
}

/** An approver that records each question and answers from a list. */
function approver(...answers: ApprovalAnswer[]) {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    approver: async (request: ApprovalRequest) => {
      asked.push(request);
      return answers.shift() ?? 'deny';
    },
  };
}

describe('--max-agents 0', () => {
  it('offers the model no agent tools at all, and no background shells', async () => {
    mock.respond((request): Reply => {
      if (JSON.stringify(request.body.messages.at(-1)).includes('tool_result')) return { text: 'done' };
      return { toolCalls: [{ name: 'bash', args: { command: 'sleep 300', run_in_background: true } }] };
    });
    // What --max-agents 0 becomes (start/session-setup.ts): the top settings layer.
    const flags = { agents: { maxConcurrent: 0 }, permissionMode: 'yolo' as const };
    const { submit } = await open({ headless: true, flags });
    await submit('hi');
    expect(lastResults(parentRequests().at(-1)!)).toEqual([
      { text: 'background shells are not available here; run the command without run_in_background', isError: true },
    ]);
    const [request] = parentRequests();
    const names = (request!.body.tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain('bash');
    expect(names.filter((n) => n.startsWith('agent_'))).toEqual([]);
    expect(JSON.stringify(request!.body.system)).not.toContain('agent_start');
  });

  it('keeps them with any other number', async () => {
    mock.respond(() => ({ text: 'hello' }));
    const { submit } = await open({ headless: true, flags: { agents: { maxConcurrent: 1 } } });
    await submit('hi');
    const names = (parentRequests()[0]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['agent_start', 'agent_poll', 'agent_stop', 'agent_send', 'agent_list']));
  });
});

describe('agents.approve', () => {
  it('headless: starts beyond 3 in one turn are refused with the setting to change, and the user is told', async () => {
    fanOut(5);
    const { session, submit, events } = await open({ headless: true });
    await submit('look at five areas');
    const results = lastResults(parentRequests().at(-1)!);
    expect(results.slice(0, 3).map((r) => r.text)).toEqual([
      expect.stringMatching(/^Sub-agent sub-1 started/),
      expect.stringMatching(/^Sub-agent sub-2 started/),
      expect.stringMatching(/^Sub-agent sub-3 started/),
    ]);
    for (const refused of results.slice(3)) {
      expect(refused.isError).toBe(true);
      expect(refused.text).toBe(
        'Not started: starting more than 3 sub-agents in one turn needs the user\'s approval (agents.approve is "over:3"), and no one can be asked in this run. Start at most 3 per turn, or the user can set agents.approve to "never" or a higher "over:N" in settings.json (or run with --yolo).',
      );
    }
    expect(session.jobs()).toHaveLength(3);
    const warnings = events.flatMap((e) => (e.type === 'notice' && e.level === 'warn' ? [e.text] : []));
    expect(warnings.filter((w) => w.includes('agents.approve'))).toHaveLength(1);
  });

  it('yolo never asks; "never" and a higher "over:N" let more start', async () => {
    fanOut(5);
    const yolo = await open({ headless: true, flags: { permissionMode: 'yolo' } });
    await yolo.submit('five');
    expect(yolo.session.jobs()).toHaveLength(5);
    mock.reset();
    fanOut(5);
    const higher = await open({ headless: true, flags: { agents: { approve: 'over:5' } } });
    await higher.submit('five');
    expect(higher.session.jobs()).toHaveLength(5);
  });

  it('asks the user once, with the count and an estimate; allowed, all start', async () => {
    fanOut(5);
    const user = approver('allow');
    const { session, submit } = await open({ headless: false, approver: user.approver });
    await submit('five');
    expect(user.asked).toEqual([
      {
        toolName: 'agent_start',
        label: '5 sub-agents this turn',
        args: { count: 5, limit: 3 },
        reason:
          'estimate: at most 5 × 1.0M tokens (agents.maxTotalTokens); none has finished yet to average · agents.approve is "over:3"',
      },
    ]);
    expect(session.jobs()).toHaveLength(5);
    expect(lastResults(parentRequests().at(-1)!).every((r) => !r.isError)).toBe(true);
  });

  it('denied: the starts beyond the limit return an error saying the user declined; the next turn starts afresh', async () => {
    fanOut(5);
    const user = approver('deny', 'allow-always');
    const { session, submit } = await open({ headless: false, approver: user.approver });
    await submit('five');
    const results = lastResults(parentRequests().at(-1)!);
    expect(results.filter((r) => !r.isError)).toHaveLength(3);
    expect(results.filter((r) => r.isError).map((r) => r.text)).toEqual([
      'Not started: the user declined starting more than 3 sub-agents in this turn (agents.approve is "over:3"). Go on with the sub-agents already started, do this part yourself, or ask the user.',
      'Not started: the user declined starting more than 3 sub-agents in this turn (agents.approve is "over:3"). Go on with the sub-agents already started, do this part yourself, or ask the user.',
    ]);
    expect(session.jobs()).toHaveLength(3);
    await session.agents.manager.idle();
    // A new turn asks again (its estimate now from the three that finished); "always" stops asking.
    await submit('five more');
    expect(user.asked).toHaveLength(2);
    expect(user.asked[1]!.reason).toMatch(
      /^estimate: ~5 × \S+ tokens( \(\$\d+\.\d\d\))? = ~\S+ tokens.*, from 3 finished sub-agents · /,
    );
    expect(session.jobs()).toHaveLength(8);
    await session.agents.manager.idle();
    await submit('and five more');
    expect(user.asked).toHaveLength(2);
    expect(session.jobs()).toHaveLength(13);
  });
});

describe('the policy and the estimate', () => {
  it('defaults to over:3, and to never in yolo; the setting wins', () => {
    expect(fanOutPolicy(undefined, 'default')).toEqual({ kind: 'over', limit: 3 });
    expect(fanOutPolicy(undefined, 'accept-edits')).toEqual({ kind: 'over', limit: 3 });
    expect(fanOutPolicy(undefined, 'yolo')).toEqual({ kind: 'never' });
    expect(fanOutPolicy('over:1', 'yolo')).toEqual({ kind: 'over', limit: 1 });
    expect(fanOutPolicy('never', 'default')).toEqual({ kind: 'never' });
  });

  it('averages the finished sub-agents, with their cost when known', () => {
    const finished = (tokens: number): Job => ({
      id: 'sub-1',
      number: 1,
      state: 'done',
      definition: 'explore',
      mode: 'typed',
      task: 't',
      createdAt: 0,
      turns: 1,
      toolCalls: 0,
      contextTokens: 0,
      usage: { ...emptyUsage(), input: tokens },
    });
    const jobs = [finished(30_000), finished(50_000), { ...finished(999_999), state: 'running' as const }];
    expect(fanOutEstimate(4, jobs, { costOf: (usage) => usage.input / 100_000 })).toBe(
      '~4 × 40k tokens ($0.40) = ~160k tokens ($1.60), from 2 finished sub-agents',
    );
    expect(fanOutEstimate(4, jobs, {})).toBe('~4 × 40k tokens = ~160k tokens, from 2 finished sub-agents');
    expect(fanOutEstimate(2, [], { maxTotalTokens: 200_000 })).toBe(
      'at most 2 × 200k tokens (agents.maxTotalTokens); none has finished yet to average',
    );
  });
});
