import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';

const t = useMockProject();
const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
const lastMessage = (r: RecordedRequest) => JSON.stringify(r.body.messages.at(-1));

/** A parent on the default model that starts one job on haiku, waits for its notice and polls it. */
function scripted() {
  t.mock.respond((request): Reply => {
    if (isChild(request)) return { text: 'report', usage: { input: 1_000, output: 100, cacheRead: 500, cacheWrite: 200 } };
    if (request.body.messages.length === 1) {
      return {
        toolCalls: [{ name: 'agent_start', args: { task: 'look around', model: 'haiku' } }],
        usage: { input: 2_000, output: 50 },
      };
    }
    if (lastMessage(request).includes('completed. Call agent_poll')) {
      return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }], usage: { input: 3_000, output: 20 } };
    }
    return { text: 'done', usage: { input: 4_000, output: 10 } };
  });
}

/** Dollars at a model's prices per million tokens: input, output, cache read, cache write. */
const dollars = (u: { input: number; output: number; cacheRead: number; cacheWrite: number }, p: number[]) =>
  (u.input * p[0]! + u.output * p[1]! + u.cacheRead * p[2]! + u.cacheWrite * p[3]!) / 1_000_000;
const SONNET = [2, 10, 0.2, 2.5];
const HAIKU = [0.1, 0.5, 0.01, 0.125];

describe('per-job usage in the headless results', () => {
  it('--output-format json: each job has its tokens by kind, its cost and its modelUsage; modelUsage splits the models', async () => {
    scripted();
    const result = await runCli(['-p', 'go', '--output-format', 'json'], { cwd: t.project, env: t.env });
    expect(result.stderr).toBe('');
    const out = JSON.parse(result.stdout);
    const child = { input: 1_000, output: 100, cacheRead: 500, cacheWrite: 200 };
    // Its first call, the turn's end, the notice's poll and the answer.
    const parent = { input: 13_000, output: 90, cacheRead: 0, cacheWrite: 0 };
    expect(out.jobs).toHaveLength(1);
    expect(out.jobs[0]).toMatchObject({ id: 'sub-1', model: 'claude-haiku-5-5', tokens: child });
    expect(out.jobs[0].cost_usd).toBeCloseTo(dollars(child, HAIKU), 10);
    expect(out.jobs[0].modelUsage).toEqual({
      'claude-haiku-5-5': {
        inputTokens: 1_000,
        outputTokens: 100,
        cacheReadInputTokens: 500,
        cacheCreationInputTokens: 200,
        webSearchRequests: 0,
        costUSD: out.jobs[0].cost_usd,
        contextWindow: 1_000_000,
        maxOutputTokens: 128_000,
      },
    });
    expect(Object.keys(out.modelUsage)).toEqual(['claude-sonnet-5', 'claude-haiku-5-5']);
    expect(out.modelUsage['claude-sonnet-5']).toMatchObject({ inputTokens: 13_000, outputTokens: 90 });
    expect(out.modelUsage['claude-sonnet-5'].costUSD).toBeCloseTo(dollars(parent, SONNET), 10);
    // The total is each model at its own prices, not the whole at the session model's.
    expect(out.total_cost_usd).toBeCloseTo(dollars(parent, SONNET) + dollars(child, HAIKU), 10);
    expect(out.usage).toEqual({ input: 14_000, output: 190, cacheRead: 500, cacheWrite: 200 });
  });

  it("--output-format stream-json: the result's modelUsage has each model, and each job its own", async () => {
    scripted();
    const result = await runCli(['-p', 'go', '--output-format', 'stream-json', '--verbose'], { cwd: t.project, env: t.env });
    expect(result.stderr).toBe('');
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const final = lines.filter((line) => line.type === 'result').at(-1);
    expect(Object.keys(final.modelUsage)).toEqual(['claude-sonnet-5', 'claude-haiku-5-5']);
    expect(final.modelUsage['claude-haiku-5-5']).toMatchObject({
      inputTokens: 1_000,
      cacheReadInputTokens: 500,
      cacheCreationInputTokens: 200,
    });
    expect(final.jobs[0].modelUsage['claude-haiku-5-5']).toMatchObject({ outputTokens: 100 });
  });
});
