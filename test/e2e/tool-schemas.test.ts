/**
 * The built binary sends the tools' JSON Schemas from the table the build made
 * (src/core/tools/schema-table.ts): each must be the zod schema's conversion, byte for byte,
 * as the unbundled code makes it. Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { toolSchema } from '../../src/core/tools/define.js';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';
import { useTestSessions } from '../support/test-session.js';

const t = useMockProject();
const open = useTestSessions();

describe('the tool schemas the binary sends', () => {
  it('are the zod conversions of the same tools, in a repository (worktree tools too)', async () => {
    execFileSync('git', ['init', '--quiet', t.project]);
    t.mock.script({ text: 'ok' });
    const result = await runCli(['-p', 'hi'], { cwd: t.project, env: t.env });
    expect(result.code).toBe(0);
    const sent = (t.mock.requests[0]!.body.tools as { name: string; input_schema: unknown }[]).map((tool) => ({
      name: tool.name,
      schema: tool.input_schema,
    }));

    const { session } = await open(() => ({ text: 'unused' }), { dirs: { cwd: t.project, env: t.env } });
    const converted = session.session.tools
      .all()
      .map((tool) => ({ name: tool.name, schema: toolSchema(tool, undefined).inputSchema }));
    expect(sent.map((tool) => tool.name)).toContain('agent_merge');
    expect(sent).toEqual(converted);
  });
});
