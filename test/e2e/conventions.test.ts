import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';

// The conventions users bring from Claude Code: its agent files, as collections lay them out.

const t = useMockProject();

const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
const toolNames = (r: RecordedRequest) => (r.body.tools ?? []).map((tool: { name: string }) => tool.name);

function write(relative: string, text: string): string {
  const file = path.join(t.project, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const REVIEWER = `---
name: security-reviewer
description: Reviews changes for security problems.\\nRead-only.
permissionMode: plan
model: sonnet
color: red
initialPrompt: Review the diff.
---

You review code for security problems. Never change files.
`;

describe('Claude Code agent files end to end', () => {
  it('loads a categories/ collection; its warnings reach stream-json as system events and stderr', async () => {
    const reviewer = write('.claude/agents/categories/04-quality/security-reviewer.md', REVIEWER);
    write(
      '.claude/agents/categories/02-lang/dotnet-framework-4.8-expert.md',
      '---\nname: dotnet-framework-4.8-expert\ndescription: Legacy .NET specialist.\ntools: Read, Grep\n---\nYou know .NET 4.8.\n',
    );
    t.mock.script({ text: 'ok' });
    const result = await runCli(['-p', 'which agents are there?', '--output-format', 'stream-json'], {
      cwd: t.project,
      env: t.env,
    });
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const warnings = lines.filter((line) => line.type === 'system' && line.subtype === 'warning').map((line) => line.message);
    expect(warnings).toEqual([`${reviewer}: ignored initialPrompt: no meaning for an outrider sub-agent`]);
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init' });
    for (const warning of warnings) expect(result.stderr).toContain(warning);

    const start = t.mock.requests[0]!.body.tools.find((tool: { name: string }) => tool.name === 'agent_start');
    expect(start.description).toContain('dotnet-framework-4.8-expert: Legacy .NET specialist.');
    // The literal \n of the file is a line break, as Claude Code makes it: the catalogue shows the
    // first sentence (agent_list gives the whole description), and no backslash-n reaches the model.
    expect(start.description).toContain('security-reviewer: Reviews changes for security problems.');
    expect(start.description).not.toContain('\\n');
  });

  it('a plan-mode reviewer without a tools line cannot write, even under --yolo, and runs its alias sonnet as the current Sonnet id', async () => {
    write('.claude/agents/security-reviewer.md', REVIEWER);
    t.mock.respond((request): Reply => {
      if (isChild(request)) {
        return request.body.messages.length === 1
          ? { toolCalls: [{ name: 'write_file', args: { path: 'pwned.txt', content: 'x' } }] }
          : { text: 'No problems found.' };
      }
      const last = JSON.stringify(request.body.messages.at(-1));
      if (request.body.messages.length === 1) {
        return {
          toolCalls: [{ name: 'agent_start', args: { agent: 'security-reviewer', task: 'Review src/ for injection bugs.' } }],
        };
      }
      if (last.includes('started')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      return { text: 'The reviewer found nothing.' };
    });
    const result = await runCli(['-p', 'review the code', '--yolo', '--model', 'claude-sonnet-4-5'], {
      cwd: t.project,
      env: t.env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The reviewer found nothing.\n');
    const children = t.mock.requests.filter(isChild);
    expect(children).toHaveLength(2);
    expect(toolNames(children[0]!)).toEqual(['read_file', 'grep', 'glob', 'list_dir', 'read_result']);
    expect(children.map((r) => r.body.model)).toEqual(['claude-sonnet-5', 'claude-sonnet-5']);
    expect(JSON.stringify(children[1]!.body.messages.at(-1))).toContain('Tool \\"write_file\\" is not available');
    expect(existsSync(path.join(t.project, 'pwned.txt'))).toBe(false);
  });
});

describe('instruction files end to end', () => {
  it('run from a sub-folder, sends the root CLAUDE.md, the sub-folder AGENTS.md and an import, and refuses an import out of the repository', async () => {
    mkdirSync(path.join(t.project, '.git'), { recursive: true });
    const claude = write('CLAUDE.md', '# Project\nUse pnpm. Conventions: @docs/conventions.md\nAlso @../outside.md\n');
    write('docs/conventions.md', 'Name files in kebab-case.');
    writeFileSync(path.join(t.project, '..', 'outside.md'), 'OUTSIDE THE REPOSITORY');
    write('packages/web/AGENTS.md', 'The web package uses vitest.');
    t.mock.script({ text: 'ok' });
    const result = await runCli(['-p', 'hi', '--output-format', 'stream-json'], {
      cwd: path.join(t.project, 'packages', 'web'),
      env: t.env,
    });
    expect(result.code).toBe(0);
    const system = JSON.stringify(t.mock.requests[0]!.body.system);
    const order = ['Use pnpm.', 'Name files in kebab-case.', 'The web package uses vitest.'].map((text) => system.indexOf(text));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(system).not.toContain('OUTSIDE THE REPOSITORY');
    const warning = JSON.parse(result.stdout.split('\n')[1]!);
    expect(warning).toMatchObject({
      type: 'system',
      subtype: 'warning',
      message: `${claude}: @../outside.md is not read: it leads outside the repository (to ${path.join(t.project, '..', 'outside.md')})`,
    });
  });
});
