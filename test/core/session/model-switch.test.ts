/**
 * `/model` and the Agent SDK's `set_model` on a real session: the next turn runs on the new
 * model (a turn under way keeps its own), sub-agents started after it that inherit follow
 * while those started before keep theirs, the parent's usage is priced at the model it was
 * spent on, and the switch is on the wire (the real SDK clients against the mock provider).
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import { openSession } from '../../../src/core/session/open-session.js';
import type { OpenedSession } from '../../../src/core/session/opened-session.js';
import type { FakeReply } from '../../support/fake-stream.js';
import { type MockProvider, startMockProvider } from '../../support/mock-provider.js';
import { isChildRequest, testDirs, useTestSessions } from '../../support/test-session.js';

const open = useTestSessions();
const usage = { input: 10_000, output: 0, cacheRead: 0, cacheWrite: 0 };
const lastText = (request: ModelRequest) => JSON.stringify(request.messages.at(-1));

describe('switching the parent model', () => {
  it('moves the next turn and the sub-agents started after it; the turn under way and earlier jobs keep theirs', async () => {
    const opened: { session?: OpenedSession } = {};
    let switched: unknown;
    const respond = (request: ModelRequest): FakeReply => {
      if (isChildRequest(request)) return { text: `child on ${request.model}` };
      const last = lastText(request);
      if (last.includes('"text":"first"'))
        return { toolCalls: [{ name: 'agent_start', args: { task: 'before the switch' } }], usage };
      if (last.includes('before the switch') || last.includes('sub-1')) {
        // The user switches while this turn still runs: its next call stays on its model.
        switched ??= opened.session!.switchModel('opus');
        if (!last.includes('todos')) return { toolCalls: [{ name: 'todo_write', args: { todos: [] } }], usage };
      }
      if (last.includes('"text":"second"'))
        return { toolCalls: [{ name: 'agent_start', args: { task: 'after the switch' } }], usage };
      return { text: 'done', usage };
    };
    const { session, stream, events, submit } = await open(respond);
    opened.session = session;
    expect(session.model).toBe('claude-sonnet-5');

    await submit('first');
    expect(switched).toMatchObject({ ok: true, target: { model: 'claude-opus-5-5' } });
    const firstTurn = stream.requests.filter((r) => !isChildRequest(r));
    expect(firstTurn.length).toBeGreaterThanOrEqual(3);
    expect(firstTurn.map((r) => r.model)).toEqual(firstTurn.map(() => 'claude-sonnet-5'));
    expect(session.model).toBe('claude-opus-5-5');
    expect(session.contextWindow).toBe(1_000_000);
    expect(events).toContainEqual({ type: 'model_changed', model: 'claude-opus-5-5', contextWindow: 1_000_000 });

    await submit('second');
    const secondTurn = stream.requests.filter((r) => !isChildRequest(r)).slice(firstTurn.length);
    expect(secondTurn.length).toBeGreaterThan(0);
    expect(secondTurn.map((r) => r.model)).toEqual(secondTurn.map(() => 'claude-opus-5-5'));
    await session.agents.manager.idle(new AbortController().signal);
    expect(session.jobs().map((job) => [job.id, job.model])).toEqual([
      ['sub-1', 'claude-sonnet-5'],
      ['sub-2', 'claude-opus-5-5'],
    ]);
    const children = stream.requests.filter(isChildRequest);
    expect(children.find((r) => lastText(r).includes('before the switch'))?.model).toBe('claude-sonnet-5');
    expect(children.find((r) => lastText(r).includes('after the switch'))?.model).toBe('claude-opus-5-5');

    // The parent's usage at the price of the model it was spent on: sonnet-5 $2, opus-5.5 $4 a million input tokens.
    const parentRows = session.usageReport().rows.filter((row) => row.name === 'parent');
    expect(parentRows.map((row) => [row.model, row.usage.input / 10_000])).toEqual([
      ['claude-sonnet-5', firstTurn.length],
      ['claude-opus-5-5', secondTurn.length],
    ]);
    expect(parentRows[0]!.cost).toBeCloseTo(firstTurn.length * 0.02, 10);
    expect(parentRows[1]!.cost).toBeCloseTo(secondTurn.length * 0.04, 10);
    // The switch is in the transcript.
    const lines = readFileSync(session.paths.transcript, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toContainEqual(expect.objectContaining({ type: 'event', name: 'model', data: { model: 'claude-opus-5-5' } }));
  });

  it("caps each job's answer at its own model's output limit, not at the parent's", async () => {
    const respond = (request: ModelRequest): FakeReply => {
      if (isChildRequest(request)) return { text: 'child done' };
      if (lastText(request).includes('"text":"go"'))
        return { toolCalls: [{ name: 'agent_start', args: { task: 'on opus 4', model: 'claude-opus-4' } }] };
      return { text: 'started' };
    };
    const { session, stream, submit } = await open(respond, { flags: { maxTokens: 50_000 } });
    await submit('go');
    await session.agents.manager.idle(new AbortController().signal);
    // claude-sonnet-5 answers up to 128k: the setting's 50k; claude-opus-4 up to 32k.
    expect(stream.requests.find((r) => !isChildRequest(r))!.maxTokens).toBe(50_000);
    expect(stream.requests.find(isChildRequest)!.maxTokens).toBe(32_000);
  });

  it('tells every front end what a switch should say (a model outside the catalogue), as a notice on the stream', async () => {
    const { session, events } = await open(() => ({ text: 'ok' }));
    expect(session.switchModel('claude-nova-9')).toMatchObject({ ok: true });
    expect(events).toContainEqual({
      type: 'notice',
      level: 'warn',
      text: expect.stringContaining("claude-nova-9 is not in outrider's model catalogue"),
    });
  });

  it('refuses a model the provider cannot serve: nothing changes, no event', async () => {
    const { session, stream, events, submit } = await open(() => ({ text: 'ok' }));
    const outcome = session.switchModel('gpt-5.5');
    expect(outcome.ok).toBe(false);
    expect(events.some((e) => e.type === 'model_changed')).toBe(false);
    await submit('hi');
    expect(stream.requests[0]!.model).toBe('claude-sonnet-5');
  });

  it("keeps judging a turn under way by its own model's window: a switch to a smaller one compacts from the next turn", async () => {
    const big = 'x'.repeat(190_000 * 4);
    const opened: { session?: OpenedSession } = {};
    const { session, events, submit } = await open((request) => {
      if (request.system.includes('summar') || lastText(request).includes('summar')) return { text: 'the summary' };
      // The first call of the big turn: the user switches to a 200k model while it runs.
      if (lastText(request).includes('xxxx')) {
        opened.session!.switchModel('claude-opus-4');
        return { toolCalls: [{ name: 'todo_write', args: { todos: [] } }] };
      }
      return { text: 'ok' };
    });
    opened.session = session;
    await submit(big);
    // The turn's second call went to sonnet-5's million-token window: nothing to compact.
    expect(events.some((e) => e.type === 'compact')).toBe(false);
    await submit('more');
    expect(events.some((e) => e.type === 'compact')).toBe(true);
  });

  it("compacts against the new model's window", async () => {
    // claude-opus-4 has a 200k window; 190k tokens of history pass 85% of it, not of sonnet-5's million.
    const big = 'x'.repeat(190_000 * 4);
    const { session, stream, events, submit } = await open((request) =>
      request.system.includes('summar') || lastText(request).includes('summar') ? { text: 'the summary' } : { text: 'ok' },
    );
    await submit(big);
    expect(events.some((e) => e.type === 'compact')).toBe(false);
    expect(session.switchModel('claude-opus-4')).toMatchObject({ ok: true });
    await submit('more');
    expect(events.some((e) => e.type === 'compact')).toBe(true);
    expect(stream.requests.at(-1)!.model).toBe('claude-opus-4');
  });
});

describe('switching on the wire', () => {
  let mock: MockProvider;
  const sessions: OpenedSession[] = [];
  beforeAll(async () => {
    mock = await startMockProvider();
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
    mock.reset();
  });
  afterAll(() => mock.close());

  it('Anthropic: the next request names the new model and carries its effort', async () => {
    const dirs = testDirs();
    const session = await openSession({
      ...dirs,
      env: { ...dirs.env, ANTHROPIC_BASE_URL: mock.anthropicBaseURL },
      headless: true,
      flags: {},
    });
    sessions.push(session);
    mock.script({ text: 'one' }, { text: 'two' });
    await session.submitPrompt('hello', new AbortController().signal);
    expect(session.switchModel('opus', 'high')).toMatchObject({ ok: true });
    await session.submitPrompt('again', new AbortController().signal);
    const [first, second] = mock.requests;
    expect(first!.body.model).toBe('claude-sonnet-5');
    expect(first!.body.thinking).toBeUndefined();
    expect(second!.body.model).toBe('claude-opus-5-5');
    expect(second!.body.thinking).toEqual({ type: 'adaptive' });
    expect(second!.body.output_config).toEqual({ effort: 'high' });
  });

  it('OpenAI: a switch between two models of the server', async () => {
    const dirs = testDirs();
    const session = await openSession({
      ...dirs,
      env: { OUTRIDER_HOME: dirs.env.OUTRIDER_HOME!, OPENAI_API_KEY: 'sk-test-openai-1234', OPENAI_BASE_URL: mock.openaiBaseURL },
      headless: true,
      flags: { provider: 'openai', model: 'gpt-4.1' },
    });
    sessions.push(session);
    mock.script({ text: 'one' }, { text: 'two' });
    await session.submitPrompt('hello', new AbortController().signal);
    expect(session.switchModel('gpt-4.1-mini')).toMatchObject({ ok: true });
    await session.submitPrompt('again', new AbortController().signal);
    expect(mock.requests.map((r) => r.body.model)).toEqual(['gpt-4.1', 'gpt-4.1-mini']);
    expect(
      session
        .usageReport()
        .rows.filter((r) => r.name === 'parent')
        .map((r) => r.model),
    ).toEqual(['gpt-4.1', 'gpt-4.1-mini']);
  });
});
