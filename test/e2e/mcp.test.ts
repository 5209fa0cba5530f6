import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { MCP_BIN, startHttpServer } from '../support/mcp-servers.js';
import { expectExited } from '../support/process.js';
import { runCli } from '../support/run-cli.js';

/**
 * MCP servers through the built binary: real servers from the registry (server-everything over
 * stdio and streamable HTTP, server-filesystem over stdio), the mock provider calling their tools.
 */
const t = useMockProject();

const run = (args: string[]) => runCli(args, { cwd: t.project, env: t.env, timeoutMs: 60_000 });

function writeUserSettings(value: unknown): void {
  mkdirSync(t.home, { recursive: true });
  writeFileSync(path.join(t.home, 'settings.json'), JSON.stringify(value));
}

function writeFile(relative: string, value: unknown): string {
  const file = path.join(t.project, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value), { mode: 0o755 });
  return file;
}

/** A stdio server that writes its pid to `pidFile` first: proof it started, and a process to watch end. */
function pidWrapper(pidFile: string): string {
  return writeFile(`wrap-${path.basename(pidFile)}.sh`, `#!/bin/sh\necho $$ > ${pidFile}\nexec ${MCP_BIN.everything}\n`);
}

/** The text of every tool result the model got in request `index`. */
function toolResults(index: number): string[] {
  const body = t.mock.requests[index]!.body as { messages: Array<{ content: unknown }> };
  const last = body.messages.at(-1)!.content as Array<{ type: string; content?: unknown }>;
  return last.filter((block) => block.type === 'tool_result').map((block) => JSON.stringify(block.content));
}

const toolNames = (index: number) =>
  (t.mock.requests[index]!.body as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
const mcpLines = (stderr: string) => stderr.split('\n').filter((line) => /MCP server/.test(line));

describe('MCP servers, headless', () => {
  it('calls the everything server over stdio (echo, add, a resource) from --mcp-config, allowed by permissions.allow', async () => {
    writeUserSettings({ permissions: { allow: ['mcp__everything__*'] } });
    writeFile('servers.json', { mcpServers: { everything: { command: MCP_BIN.everything } } });
    t.mock.script(
      {
        toolCalls: [
          { name: 'mcp__everything__echo', args: { message: 'hello mcp' } },
          { name: 'mcp__everything__get-sum', args: { a: 2, b: 3 } },
          { name: 'mcp__everything__get-resource-reference', args: { resourceType: 'Text', resourceId: 2 } },
        ],
      },
      { text: 'all three answered' },
    );
    const result = await run(['-p', 'use the tools', '--mcp-config', 'servers.json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('all three answered\n');
    const echo = (t.mock.requests[0]!.body as { tools: Array<{ name: string; input_schema: unknown }> }).tools.find(
      (tool) => tool.name === 'mcp__everything__echo',
    );
    // The server's JSON Schema, as it sent it.
    expect(echo?.input_schema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string', description: 'Message to echo' } },
    });
    const [echoed, sum, resource] = toolResults(1);
    expect(echoed).toBe('"Echo: hello mcp"');
    expect(sum).toBe('"The sum of 2 and 3 is 5."');
    expect(resource).toContain('[resource: demo://resource/dynamic/text/2]');
  });

  it('reads a file inside the directory server-filesystem allows, and is refused outside it', async () => {
    const allowed = path.join(t.project, 'docs');
    writeFile('docs/notes.txt', 'the notes say hi\n');
    writeFile('secret.txt', 'not for the server\n');
    writeUserSettings({
      mcpServers: { fs: { command: MCP_BIN.filesystem, args: [allowed] } },
      permissions: { allow: ['mcp__fs__*'] },
    });
    t.mock.script(
      {
        toolCalls: [
          { name: 'mcp__fs__read_text_file', args: { path: path.join(allowed, 'notes.txt') } },
          { name: 'mcp__fs__read_text_file', args: { path: path.join(t.project, 'secret.txt') } },
        ],
      },
      { text: 'read' },
    );
    const result = await run(['-p', 'read the notes']);
    expect(result.code).toBe(0);
    const [inside, outside] = toolResults(1);
    expect(inside).toBe('"the notes say hi\\n"');
    expect(outside).toMatch(/Access denied|outside allowed directories/i);
    expect(outside).not.toContain('not for the server');
  });

  it('calls the everything server over streamable HTTP, its URL and a header expanded from ${VAR} and ${VAR:-default}', async () => {
    const server = await startHttpServer('streamableHttp');
    try {
      writeUserSettings({
        mcpServers: { remote: { type: 'http', url: '${MCP_URL}/mcp', headers: { 'X-Client': '${CLIENT:-outrider}' } } },
        permissions: { allow: ['mcp__remote__echo'] },
      });
      t.mock.script({ toolCalls: [{ name: 'mcp__remote__echo', args: { message: 'over http' } }] }, { text: 'ok' });
      const result = await runCli(['-p', 'echo'], { cwd: t.project, env: { ...t.env, MCP_URL: server.url }, timeoutMs: 60_000 });
      expect(result.code).toBe(0);
      expect(toolResults(1)).toEqual(['"Echo: over http"']);
    } finally {
      await server.close();
    }
  });

  it('a server that cannot start is one warning line, and the session goes on with the others', async () => {
    writeUserSettings({
      mcpServers: { broken: { command: 'outrider-no-such-program' }, everything: { command: MCP_BIN.everything } },
      permissions: { allow: ['mcp__everything__*'] },
    });
    t.mock.script({ toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'still here' } }] }, { text: 'went on' });
    const result = await run(['-p', 'go on']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('went on\n');
    expect(mcpLines(result.stderr)).toEqual([
      'outrider: MCP server "broken" failed: cannot run "outrider-no-such-program": no such program (check the command and PATH); going on without its tools',
    ]);
    expect(toolResults(1)).toEqual(['"Echo: still here"']);
    expect(toolNames(0).filter((name) => name.startsWith('mcp__broken'))).toEqual([]);
  });

  it('a hanging tool call times out (mcp.toolTimeoutMs) and the model is told', async () => {
    writeUserSettings({
      mcpServers: { everything: { command: MCP_BIN.everything } },
      mcp: { toolTimeoutMs: 1000 },
      permissions: { allow: ['mcp__everything__*'] },
    });
    // Five minutes of work: the run ends only if the call was cut off.
    t.mock.script(
      { toolCalls: [{ name: 'mcp__everything__trigger-long-running-operation', args: { duration: 300, steps: 1 } }] },
      { text: 'gave up waiting' },
    );
    const result = await run(['-p', 'run the long one']);
    expect(result.code).toBe(0);
    expect(toolResults(1)).toEqual([
      '"mcp__everything__trigger-long-running-operation timed out after 1s and was cancelled (setting mcp.toolTimeoutMs)"',
    ]);
  });

  it('asks for an MCP tool like any tool that changes things: headless, without an allow rule, it is denied', async () => {
    writeUserSettings({ mcpServers: { everything: { command: MCP_BIN.everything } } });
    t.mock.script({ toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'x' } }] }, { text: 'denied' });
    const result = await run(['-p', 'echo']);
    expect(result.code).toBe(0);
    expect(toolResults(1)[0]).toContain('mcp__everything__echo needs approval');
  });

  it('a bad --mcp-config stops the start with one line', async () => {
    writeFile('bad.json', { mcpServers: { x: { type: 'ws', url: 'ws://x' } } });
    const result = await run(['-p', 'hi', '--mcp-config', 'bad.json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `outrider: ${path.join(t.project, 'bad.json')}: mcpServers.x.type: expected a server type: "stdio", "http" or "sse", got "ws"\n`,
    );
    expect(t.mock.requests).toHaveLength(0);
  });
});

describe("the project's .mcp.json", () => {
  it('starts nothing in an untrusted folder: one warning names the servers', async () => {
    const pidFile = path.join(t.project, 'started.pid');
    const mcpJson = writeFile('.mcp.json', { mcpServers: { planted: { command: pidWrapper(pidFile) } } });
    t.mock.script({ text: 'no servers' });
    const result = await run(['-p', 'hi']);
    expect(result.code).toBe(0);
    // Headless waits for every server it starts before the first request: had it started one, the pid would be written.
    expect(existsSync(pidFile)).toBe(false);
    expect(toolNames(0).some((name) => name.startsWith('mcp__'))).toBe(false);
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      `outrider: did not start MCP server "planted" from ${mcpJson}: this folder is not trusted; pass --trust to use them, or start outrider here (without -p) to be asked`,
    ]);
  });

  it('starts with --trust, and its process ends when the session closes', async () => {
    const pidFile = path.join(t.project, 'started.pid');
    writeFile('.mcp.json', { mcpServers: { everything: { command: pidWrapper(pidFile) } } });
    t.mock.script({ text: 'trusted' });
    const result = await run(['-p', 'hi', '--trust']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(toolNames(0)).toContain('mcp__everything__echo');
    await expectExited(Number(readFileSync(pidFile, 'utf8')));
  });
});
