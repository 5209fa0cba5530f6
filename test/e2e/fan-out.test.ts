/** `--max-agents 0` and `agents.approve` in the built binary, against the mock provider. */
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';

const t = useMockProject();
const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
const toolNames = (r: RecordedRequest) => (r.body.tools as { name: string }[]).map((tool) => tool.name);

describe('fan-out in the binary', () => {
  it('--max-agents 0 sends the model no agent tools', async () => {
    t.mock.respond(() => ({ text: 'hello' }));
    const result = await runCli(['-p', 'hi', '--max-agents', '0'], { cwd: t.project, env: t.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const names = toolNames(t.mock.requests[0]!);
    expect(names).toContain('read_file');
    expect(names.filter((name) => name.startsWith('agent_'))).toEqual([]);
  });

  it('headless, a fifth start in one turn is refused naming agents.approve; --max-agents 4 still offers the tools', async () => {
    t.mock.respond((request): Reply => {
      if (isChild(request)) return { text: 'report' };
      // Only the first request starts them: after it, tool results, then the completion notice's turn.
      if (request.body.messages.length > 1) return { text: 'done' };
      return { toolCalls: [1, 2, 3, 4].map((n) => ({ name: 'agent_start', args: { task: `area ${n}` } })) };
    });
    const result = await runCli(['-p', 'four areas', '--max-agents', '4', '--output-format', 'json'], {
      cwd: t.project,
      env: t.env,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('agents.approve');
    const parent = t.mock.requests.filter((r) => !isChild(r));
    const results = (parent[1]!.body.messages.at(-1).content as { content: unknown; is_error?: boolean }[]).map((b) => [
      JSON.stringify(b.content),
      b.is_error === true,
    ]);
    expect(results.slice(0, 3).every(([, error]) => !error)).toBe(true);
    expect(results[3]).toEqual([expect.stringContaining('agents.approve is \\"over:3\\"'), true]);
    expect(t.mock.requests.filter((r) => isChild(r) && r.body.messages.length === 1)).toHaveLength(3);
  });
});
