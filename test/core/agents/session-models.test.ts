import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { totalTokens } from '../../../src/core/loop/limits.js';
import { isChildRequest, testDirs, useTestSessions } from '../../support/test-session.js';
import { until } from '../../support/until.js';

const openWith = useTestSessions();

/** A test's folders with one user agent file. */
function dirsWithAgent(name: string, frontMatter: string) {
  const dirs = testDirs();
  const folder = path.join(dirs.env.OUTRIDER_HOME, 'agents');
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, `${name}.md`), `---\nname: ${name}\ndescription: A helper.\n${frontMatter}---\nYou help.\n`);
  return dirs;
}

describe('sub-agent models in a session', () => {
  it("runs a definition's alias on the provider's current id and prices the job at that model", async () => {
    const dirs = dirsWithAgent('quick', 'model: haiku\n');
    const { session, submit, stream } = await openWith(
      (request) => {
        if (isChildRequest(request)) return { text: 'quick report', usage: { input: 1_000_000, output: 0 } };
        if (request.messages.length === 1) {
          return { toolCalls: [{ name: 'agent_start', args: { task: 'look', agent: 'quick' } }], usage: { input: 1_000_000 } };
        }
        return { text: 'done' };
      },
      { dirs },
    );
    await submit('go');
    await session.waitForAgents(new AbortController().signal);
    const child = stream.requests.find(isChildRequest)!;
    expect(child.model).toBe('claude-haiku-5-5');
    expect(stream.requests[0]!.model).toBe('claude-sonnet-5');
    expect(session.jobs()[0]!.model).toBe('claude-haiku-5-5');
    // Haiku 5.5 input is $0.10 per million, the parent's Sonnet 5 $2.
    expect(session.costOf(session.jobs()[0]!.usage, 'sub-1')).toBeCloseTo(0.1, 3);
    // No job, or one it does not know: the parent's prices.
    expect(session.costOf(session.jobs()[0]!.usage)).toBeCloseTo(2, 3);
    expect(session.costOf(session.jobs()[0]!.usage, 'sub-99')).toBeCloseTo(2, 3);
    expect(session.cost()).toBeCloseTo(2.1, 2);
    expect(session.warnings.join('\n')).not.toMatch(/model/);
  });

  it("agent_start's model overrides the definition's; one the provider cannot serve runs on the parent's, said once", async () => {
    let step = 0;
    const { session, submit, stream, events } = await openWith((request) => {
      if (isChildRequest(request)) return { text: 'report' };
      step += 1;
      if (step === 1) {
        return {
          toolCalls: [
            { name: 'agent_start', args: { task: 'a', model: 'gpt-5' } },
            { name: 'agent_start', args: { task: 'b', model: 'gpt-5' } },
            { name: 'agent_start', args: { task: 'c', model: 'opus' } },
          ],
        };
      }
      return { text: 'done' };
    });
    await submit('go');
    await session.waitForAgents(new AbortController().signal);
    expect(session.jobs().map((j) => j.model)).toEqual(['claude-sonnet-5', 'claude-sonnet-5', 'claude-opus-5-5']);
    const models = stream.requests.filter(isChildRequest).map((r) => r.model);
    expect(models.sort()).toEqual(['claude-opus-5-5', 'claude-sonnet-5', 'claude-sonnet-5']);
    expect(JSON.stringify(stream.requests.filter((r) => !isChildRequest(r))[1]!.messages)).toContain(
      'Note: model \\"gpt-5\\" is not served by the anthropic provider; running on claude-sonnet-5 instead',
    );
    const warnings = events.filter((e) => e.type === 'notice' && e.level === 'warn' && e.text.includes('gpt-5'));
    expect(warnings).toHaveLength(1);
  });

  it('a definition whose model the provider cannot serve is named in one warning at start', async () => {
    const dirs = dirsWithAgent('planner', 'model: gpt-4.1\n');
    const { session } = await openWith(() => ({ text: 'ok' }), { dirs });
    expect(session.warnings.filter((w) => w.includes('gpt-4.1'))).toEqual([
      'agent files: model "gpt-4.1" is not served by the anthropic provider; running on claude-sonnet-5 instead (name a claude-… model, or inherit): planner',
    ]);
  });

  it("the job's snapshot says when it has used 80 % of its cap, and its next call, which could pass it, is not made", async () => {
    const { session, submit, events, stream } = await openWith((request) => {
      if (isChildRequest(request)) {
        // 95,000 of 100,000: the next call's worst case (its input and 8,192 tokens of output) no longer fits.
        return { toolCalls: [{ name: 'list_dir', args: { path: '.' } }], usage: { input: 94_950, output: 50 } };
      }
      if (request.messages.length === 1)
        return { toolCalls: [{ name: 'agent_start', args: { task: 'x', max_tokens: 100_000 } }] };
      return { text: 'done' };
    });
    await submit('go');
    await until(() => session.jobs()[0]?.state === 'error', { what: 'sub-1 to fail', observe: () => session.jobs() });
    const near = events.find((e) => e.type === 'job_state' && e.job.state === 'running' && (e.job.budgetUsed ?? 0) >= 0.8);
    expect(near && near.type === 'job_state' && near.job.budgetUsed).toBeCloseTo(0.95, 6);
    expect(session.jobs()[0]!.error).toMatch(
      /^budget: tokens reached \(the next call, up to (\d+) tokens, would pass the cap of 100000 by (\d+); 95000 used\)$/,
    );
    expect(stream.requests.filter(isChildRequest)).toHaveLength(1);
    // What it had is named: the owner knows what it need not redo.
    expect(session.jobs()[0]!.result).toContain('Tool calls it made before the cap: list_dir .');
  });

  it("a job's cap counts the jobs it started, and a nested job's cap is what its owner has left (agents.maxAgentDepth 2)", async () => {
    const { session, submit, stream } = await openWith(
      (request) => {
        const first = JSON.stringify(request.messages[0]);
        if (isChildRequest(request) && first.includes('inner')) return { text: 'inner', usage: { input: 90_000, output: 0 } };
        if (isChildRequest(request)) {
          if (request.messages.length === 1)
            return { toolCalls: [{ name: 'agent_start', args: { task: 'inner' } }], usage: { input: 2_000 } };
          if (request.messages.length === 3) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1.1' } }] };
          return { text: 'outer' };
        }
        if (request.messages.length === 1)
          return { toolCalls: [{ name: 'agent_start', args: { task: 'outer', max_tokens: 100_000 } }] };
        return { text: 'done' };
      },
      { flags: { agents: { maxAgentDepth: 2 } } },
    );
    await submit('go');
    await until(() => session.jobs()[0]?.state === 'error', { what: 'sub-1 to fail', observe: () => session.jobs() });
    const [outer, inner] = session.jobs();
    // Started when its owner had used 2,005 tokens (its first call) of its 100,000.
    expect(inner).toMatchObject({ id: 'sub-1.1', state: 'done', budget: { maxTokens: 97_995 } });
    // Alone it is far below its cap: only with its sub-agent's tokens does its next call no longer fit.
    expect(totalTokens(outer!.usage)).toBeLessThan(10_000);
    const used = totalTokens(outer!.usage) + totalTokens(inner!.usage);
    expect(outer!.error).toMatch(new RegExp(`would pass the cap of 100000 by \\d+; ${used} used`));
    // The outer job's poll got the inner report, and the call after it was never made.
    const outerCalls = stream.requests.filter((r) => isChildRequest(r) && !JSON.stringify(r.messages[0]).includes('inner'));
    expect(outerCalls).toHaveLength(2);
    expect(JSON.stringify(outerCalls[1]!.messages.at(-1))).toContain('Caps: 98k tokens');
  });
});
