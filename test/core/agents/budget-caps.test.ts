import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import { isChildRequest, useTestSessions } from '../../support/test-session.js';

const openWith = useTestSessions();
const wire = (request: ModelRequest) => JSON.stringify(request.messages);
const task = (request: ModelRequest) => JSON.stringify(request.messages[0]);
const lastText = (request: ModelRequest) => JSON.stringify(request.messages.at(-1));
const toolResults = (request: ModelRequest) =>
  request.messages.flatMap((m) => m.content).flatMap((b) => (b.type === 'tool_result' ? [b.content] : []));

describe('caps that refuse before they spend, in a session', () => {
  it('a cap crossed two levels down hangs nothing: the nested job, its owner and the parent each get their result', async () => {
    // The nested job's answer waits until its owner is polling it, so its owner hears of its end.
    let polling = () => {};
    const polled = new Promise<void>((resolve) => (polling = resolve));
    const t = await openWith(
      (request) => {
        if (isChildRequest(request) && task(request).includes('INNER')) {
          // Most of its owner's 60,000: its next call's worst case (about 10k) no longer fits.
          return { toolCalls: [{ name: 'list_dir', args: { path: '.' } }], usage: { input: 50_000 }, wait: polled };
        }
        if (isChildRequest(request)) {
          if (request.messages.length === 1)
            return { toolCalls: [{ name: 'agent_start', args: { task: 'INNER: list the files' } }], usage: { input: 2_000 } };
          if (request.messages.length === 3) {
            polling();
            return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1.1' } }] };
          }
          return { text: 'outer summary' };
        }
        const last = lastText(request);
        if (request.messages.length === 1)
          return { toolCalls: [{ name: 'agent_start', args: { task: 'OUTER: survey', max_tokens: 60_000 } }] };
        if (last.includes('completed. Call agent_poll')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
        if (last.includes('failed: budget')) return { text: 'the survey ran out of budget' };
        return { text: 'started' };
      },
      { flags: { agents: { maxAgentDepth: 2 } } },
    );
    await t.submit('go');
    expect(await t.session.waitForAgents(new AbortController().signal)).toBe(true);
    const result = await t.submit(undefined);
    expect(result.cause).toEqual({ kind: 'completed' });

    const [outer, inner] = t.session.jobs();
    expect(inner).toMatchObject({
      id: 'sub-1.1',
      state: 'error',
      error: expect.stringMatching(/^budget: tokens reached \(the next call/),
    });
    expect(outer).toMatchObject({
      id: 'sub-1',
      state: 'error',
      error: expect.stringMatching(
        /^budget: tokens reached \(the next call, up to \d+ tokens, would pass the cap of 60000 by \d+;/,
      ),
    });
    // The owner's poll returned its sub-agent's failure, and its own next call was never made.
    const outerCalls = t.stream.requests.filter((r) => isChildRequest(r) && task(r).includes('OUTER'));
    expect(outerCalls).toHaveLength(2);
    const outerTranscript = readFileSync(path.join(t.session.paths.agentsDir, 'sub-1.jsonl'), 'utf8');
    expect(outerTranscript).toMatch(/sub-agent sub-1\.1 failed: budget: tokens reached/);
    expect(t.stream.requests.filter((r) => isChildRequest(r) && task(r).includes('INNER'))).toHaveLength(1);
    expect(outer!.result).toBe(
      '(sub-agent produced no text output)\nTool calls it made before the cap: agent_start INNER: list the files · agent_poll sub-1.1',
    );
    // The parent was told which cap and by how much, with what the job had.
    const parentLast = t.stream.requests.filter((r) => !isChildRequest(r)).at(-1)!;
    expect(toolResults(parentLast).at(-1)).toMatch(
      /^sub-agent sub-1 failed: budget: tokens reached \(the next call, up to \d+ tokens, would pass the cap of 60000 by \d+; \d+ used\)\nPartial result:\n/,
    );
    expect(t.session.agents.manager.active()).toEqual([]);
  });

  it("an owner's own call refused while its sub-agent still runs: the sub-agent is stopped with it, and the parent hears of the owner", async () => {
    const t = await openWith(
      (request) => {
        // The nested job runs until it is stopped.
        if (isChildRequest(request) && task(request).includes('INNER')) return { hang: true, usage: { input: 0 } };
        if (isChildRequest(request)) {
          if (request.messages.length === 1)
            return { toolCalls: [{ name: 'agent_start', args: { task: 'INNER: wait' } }], usage: { input: 45_000 } };
          return { text: 'never asked' };
        }
        const last = lastText(request);
        if (request.messages.length === 1)
          return { toolCalls: [{ name: 'agent_start', args: { task: 'OUTER: survey', max_tokens: 60_000 } }] };
        if (last.includes('completed. Call agent_poll')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
        return { text: 'done' };
      },
      { flags: { agents: { maxAgentDepth: 2 } } },
    );
    await t.submit('go');
    expect(await t.session.waitForAgents(new AbortController().signal)).toBe(true);
    await t.submit(undefined);
    expect(t.session.jobs().map((j) => [j.id, j.state])).toEqual([
      ['sub-1', 'error'],
      ['sub-1.1', 'aborted'],
    ]);
    const parentLast = t.stream.requests.filter((r) => !isChildRequest(r)).at(-1)!;
    expect(toolResults(parentLast).at(-1)).toMatch(/^sub-agent sub-1 failed: budget: tokens reached \(the next call/);
  });

  it("states a job's caps in agent_start's result, and what is left of the session budget; the description says there is one", async () => {
    const t = await openWith(
      (request) => {
        if (isChildRequest(request)) return { text: 'done' };
        if (request.messages.length === 1) {
          return {
            toolCalls: [
              {
                name: 'agent_start',
                args: { task: 'x', max_cost_usd: 0.5, max_turns: 3, max_tool_calls: 4, max_duration_s: 60 },
              },
              // Higher than the settings' 10 turns: not raised.
              { name: 'agent_start', args: { task: 'y', max_turns: 50 } },
            ],
          };
        }
        return { text: 'ok' };
      },
      { flags: { agents: { maxSessionTokens: 500_000 } } },
    );
    await t.submit('go');
    const results = toolResults(t.stream.requests.filter((r) => !isChildRequest(r))[1]!);
    expect(results[0]).toMatch(
      /^Sub-agent sub-1 started \((queued|running)\)\. Call agent_poll with id sub-1 to retrieve its summary\. Caps: 1\.0M tokens, \$0\.5000, 3 turns, 4 tool calls, 1m00s\. Session budget left: 500k of 500k tokens\.$/,
    );
    expect(results[1]).toContain('Caps: 1.0M tokens, 10 turns, 5m00s.');
    const start = t.stream.requests[0]!.tools.find((tool) => tool.name === 'agent_start')!;
    expect(start.description).toContain('This session has a budget: each start says what is left of it.');
  });

  it('max_tool_calls: the calls past it are answered "not run", and the job ends failed naming the cap', async () => {
    const t = await openWith((request) => {
      if (isChildRequest(request)) {
        return {
          toolCalls: [
            { name: 'list_dir', args: { path: '.' } },
            { name: 'glob', args: { pattern: '*' } },
            { name: 'grep', args: { pattern: 'x' } },
          ],
        };
      }
      if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'x', max_tool_calls: 2 } }] };
      return { text: 'ok' };
    });
    await t.submit('go');
    await t.session.agents.manager.idle();
    const job = t.session.jobs()[0]!;
    expect(job).toMatchObject({
      state: 'error',
      toolCalls: 2,
      error: 'budget: tool calls reached (2 of 2; the calls past it were not run)',
    });
    expect(t.stream.requests.filter(isChildRequest)).toHaveLength(1);
    expect(job.result).toContain('Tool calls it made before the cap: list_dir . · glob * · grep x');
  });

  it('a hostile start: no caps of its own and a 1 MB task under a session budget is refused before its first call', async () => {
    const t = await openWith(
      (request) => {
        if (isChildRequest(request)) return { text: 'should never be asked' };
        if (request.messages.length === 1)
          return { toolCalls: [{ name: 'agent_start', args: { task: `x${'y'.repeat(1024 * 1024)}` } }] };
        return { text: 'ok' };
      },
      { flags: { agents: { maxSessionTokens: 200_000 } } },
    );
    await t.submit('go');
    await t.session.agents.manager.idle();
    expect(t.stream.requests.filter(isChildRequest)).toHaveLength(0);
    expect(t.session.jobs()[0]).toMatchObject({
      state: 'error',
      turns: 0,
      error: expect.stringMatching(
        /^budget: session tokens reached \(the next call, up to \d{6} tokens, would pass the session budget of 200000 by/,
      ),
    });
  });

  it('a model with no known price and a dollar cap: the start is refused, saying how to price it or cap it in tokens', async () => {
    const t = await openWith(
      (request) => {
        if (isChildRequest(request)) return { text: 'ran' };
        if (request.messages.length === 1) {
          return {
            toolCalls: [
              { name: 'agent_start', args: { task: 'x', max_cost_usd: 1 } },
              { name: 'agent_start', args: { task: 'y', max_tokens: 100_000 } },
            ],
          };
        }
        return { text: 'ok' };
      },
      { flags: { model: 'claude-experimental-9' } },
    );
    await t.submit('go');
    await t.session.agents.manager.idle();
    const results = toolResults(t.stream.requests.filter((r) => !isChildRequest(r))[1]!);
    expect(results[0]).toContain('no price is known for model "claude-experimental-9", so its dollar cap ($1.00) cannot be kept');
    expect(results[0]).toContain('models["claude-experimental-9"].inputPrice');
    expect(results[1]).toMatch(/^Sub-agent sub-\d started/);
    expect(t.stream.requests.filter(isChildRequest).map(wire).join()).not.toContain('Task:\\nx');
  });
});
