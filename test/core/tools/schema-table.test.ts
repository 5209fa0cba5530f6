/**
 * The build's table of tool JSON Schemas (schema-table.ts, scripts/build.mjs) may stand in for
 * the zod conversion only if a tool's schema never depends on the session it is in. Checked
 * here for sessions set up differently (a plain folder, a repository, skills and agent files,
 * another model): every tool's conversion equals the one in the table the build would make.
 * test/e2e/tool-schemas.test.ts checks the table inside the built binary.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineTool, toolSchema } from '../../../src/core/tools/define.js';
import { convertSchema, schemaTable } from '../../../src/core/tools/schema-table.js';
import * as z from 'zod';
import { testDirs, useTestSessions } from '../../support/test-session.js';

const open = useTestSessions();
const none = () => ({ text: 'unused' });

/** The table as scripts/tool-schema-table.ts makes it: a session in a fresh repository. */
async function buildTable(): Promise<Record<string, Record<string, unknown>>> {
  const dirs = testDirs();
  execFileSync('git', ['init', '--quiet', dirs.cwd]);
  const { session } = await open(none, { dirs });
  return schemaTable(session.session.tools.schemas());
}

describe('the tool schema table', () => {
  it('agrees with the zod conversion in every kind of session', async () => {
    const table = await buildTable();
    expect(Object.keys(table)).toEqual(expect.arrayContaining(['read_file', 'bash', 'agent_start', 'todo_write', 'agent_merge']));

    const plain = testDirs();
    const rich = testDirs();
    execFileSync('git', ['init', '--quiet', rich.cwd]);
    mkdirSync(path.join(rich.cwd, '.outrider', 'agents'), { recursive: true });
    writeFileSync(
      path.join(rich.cwd, '.outrider', 'agents', 'reviewer.md'),
      '---\nname: reviewer\ndescription: reviews code\ntools: [read_file, grep]\n---\nReview the code.\n',
    );
    mkdirSync(path.join(rich.cwd, '.claude', 'skills', 'deploy'), { recursive: true });
    writeFileSync(
      path.join(rich.cwd, '.claude', 'skills', 'deploy', 'SKILL.md'),
      '---\nname: deploy\ndescription: how to deploy\n---\nRun the deploy script.\n',
    );
    let compared = 0;
    for (const dirs of [plain, rich]) {
      for (const flags of [{}, { model: 'claude-haiku-4-5' }]) {
        const { session } = await open(none, { dirs, flags });
        for (const tool of session.session.tools.all()) {
          if (!(tool.name in table)) continue;
          expect({ name: tool.name, schema: convertSchema(tool.schema) }).toEqual({ name: tool.name, schema: table[tool.name] });
          compared += 1;
        }
      }
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('toolSchema takes the table entry when there is one, and converts otherwise', () => {
    const tool = defineTool({
      name: 'probe_tool',
      description: 'd',
      kind: 'read-only',
      schema: z.object({ a: z.string(), n: z.number().int().optional() }),
      execute: async () => 'x',
    });
    const converted = { type: 'object', properties: { a: { type: 'string' }, n: { type: 'integer' } }, required: ['a'] };
    expect(toolSchema(tool, undefined).inputSchema).toEqual(converted);
    expect(toolSchema(tool, { other_tool: {} }).inputSchema).toEqual(converted);
    expect(toolSchema(tool, { probe_tool: { from: 'table' } }).inputSchema).toEqual({ from: 'table' });
    // The description is always the tool's own: it may change from session to session.
    expect(toolSchema(tool, { probe_tool: { from: 'table' } }).description).toBe('d');
  });
});
