import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runHeadless } from '../../src/cli/headless.js';
import { initializeResponse } from '../../src/cli/sdk-control.js';
import { useMockProject } from '../support/e2e-project.js';
import { promptServer } from '../support/mcp-prompt-server.js';
import { MCP_BIN } from '../support/mcp-servers.js';
import { testDirs } from '../support/test-session.js';
import { openSession } from '../../src/core/session/open-session.js';

const t = useMockProject();

function writeCommand(cwd: string, name: string, text: string): void {
  const file = path.join(cwd, '.claude/commands', `${name}.md`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe("the commands the other front ends list: custom ones and MCP servers' prompts", () => {
  it("stream-json's init lists the running servers' prompts as mcp__<server>__<prompt>, after the custom commands", async () => {
    writeCommand(t.project, 'review', 'Review $1.');
    t.mock.script({ text: 'done' });
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk) => (out += chunk));
    const config = JSON.stringify({ mcpServers: { everything: { command: MCP_BIN.everything } } });
    const code = await runHeadless(
      { print: 'hi', outputFormat: 'stream-json', verbose: true, waitAgents: true, mcpConfig: [config] },
      { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: t.env, cwd: t.project },
    );
    expect(code).toBe(0);
    const init = JSON.parse(out.split('\n')[0]!) as { subtype: string; slash_commands: string[] };
    expect(init.subtype).toBe('init');
    expect(init.slash_commands[0]).toBe('review');
    expect(init.slash_commands).toContain('mcp__everything__args-prompt');
    expect(init.slash_commands).toContain('mcp__everything__simple-prompt');
    expect(init.slash_commands.some((name) => name.startsWith('/'))).toBe(false);
  });

  it("the Agent SDK's initialize answer gives each prompt's description and argument hint; a prompt shadows a custom command of its name", async () => {
    const dirs = testDirs();
    writeCommand(dirs.cwd, 'review', '---\ndescription: Review code\nargument-hint: [path]\n---\nReview $1.');
    // Typed, /mcp__docs__summarize runs the server's prompt, not this file: it is not listed.
    writeCommand(dirs.cwd, 'mcp__docs__summarize', '---\ndescription: shadowed\n---\nNever runs.');
    const docs = promptServer('docs', [
      {
        name: 'summarize',
        description: 'Sum \u001b[31mit\u001b[0m\nup',
        arguments: [{ name: 'city', required: true }, { name: 'state' }],
      },
      { name: 'bare' },
    ]);
    const opened = await openSession({ ...dirs, headless: true, flags: {}, sdkMcpServers: [docs.hosted] });
    try {
      expect(initializeResponse(opened, '1.0.0').commands).toEqual([
        { name: 'review', description: 'Review code', argumentHint: '[path]' },
        { name: 'mcp__docs__summarize', description: 'Sum it up', argumentHint: '<city> [state]' },
        { name: 'mcp__docs__bare', description: '', argumentHint: '' },
      ]);
    } finally {
      await opened.close();
    }
  });
});
