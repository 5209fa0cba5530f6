import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerEntry, McpServerSpec } from '../../../src/core/config/mcp-servers.js';
import { McpManager, type McpManagerOptions } from '../../../src/core/mcp/manager.js';
import type { McpEvent } from '../../../src/core/mcp/types.js';
import type { AnyTool, ToolContext } from '../../../src/core/tools/define.js';
import { executeTool } from '../../../src/core/tools/registry.js';
import { FakeClock, settle } from '../../support/fake-clock.js';
import { expectExited } from '../../support/process.js';
import { REPO } from '../../support/run-cli.js';
import { until } from '../../support/until.js';
import { startHttpServer } from '../../support/mcp-servers.js';

const BIN = path.join(REPO, 'node_modules/.bin');
const everything: McpServerEntry = { type: 'stdio', command: path.join(BIN, 'mcp-server-everything') };

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

function manager(servers: Array<[string, McpServerEntry]>, options: Partial<McpManagerOptions> = {}) {
  const events: McpEvent[] = [];
  const specs: McpServerSpec[] = servers.map(([name, entry]) => ({ name, source: 'settings', entry }));
  const m = new McpManager({ servers: specs, env: {}, cwd: REPO, publish: (e) => events.push(e), ...options });
  managers.push(m);
  return { m, events };
}

function tool(m: McpManager, name: string): AnyTool {
  const found = m.tools().find((t) => t.name === name);
  if (!found)
    throw new Error(
      `no tool ${name}; tools: ${m
        .tools()
        .map((t) => t.name)
        .join(', ')}`,
    );
  return found;
}

const context = (signal = new AbortController().signal): ToolContext => ({ signal, workspace: { root: REPO, extraDirs: [] } });

describe('McpManager with the real everything server over stdio', () => {
  it('starts it, names its tools mcp__<server>__<tool>, sends their schema as is, and calls them', async () => {
    const { m, events } = manager([['everything', everything]]);
    await m.start();
    const [status] = m.statuses();
    expect(status).toMatchObject({ name: 'everything', state: 'ready', transport: 'stdio', source: 'settings' });
    expect(status!.tools).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__get-sum']));
    expect(events.map((e) => e.server.state)).toEqual(['starting', 'ready']);

    const echo = tool(m, 'mcp__everything__echo');
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    // Its read-only hint is not believed unless the user says so: it asks like any mutating tool.
    expect(echo.kind).toBe('mutating');
    expect(await executeTool(echo, { message: 'hi there' }, context())).toEqual({ content: 'Echo: hi there' });
    const sum = await executeTool(tool(m, 'mcp__everything__get-sum'), { a: 2, b: 40 }, context());
    expect(sum.content).toBe('The sum of 2 and 40 is 42.');
  });

  it('keeps the text of an embedded resource and names an image by type and size', async () => {
    const { m } = manager([['everything', everything]]);
    await m.start();
    const resource = await executeTool(tool(m, 'mcp__everything__get-resource-reference'), { resourceId: 3 }, context());
    expect(resource.content).toContain('Returning resource reference for Resource 3');
    expect(resource.content).toContain('[resource: demo://resource/dynamic/text/3]\nResource 3: This is a plaintext resource');
    const image = await executeTool(tool(m, 'mcp__everything__get-tiny-image'), {}, context());
    expect(image.content).toMatch(/\[image: image\/png, \d+ bytes\]/);
  });

  it('believes read-only hints only when the user allows it', async () => {
    const { m } = manager([['everything', everything]], { trustReadOnlyHints: true });
    await m.start();
    expect(tool(m, 'mcp__everything__echo').kind).toBe('read-only');
  });

  it('times a hanging call out on its own clock, and cancels it', async () => {
    const clock = new FakeClock();
    const { m } = manager([['everything', everything]], { timers: clock, toolTimeoutMs: 5000 });
    const starting = m.start();
    // The start has its own timeout on the same clock; it does not fire unless moved past it.
    await starting;
    const call = executeTool(tool(m, 'mcp__everything__trigger-long-running-operation'), { duration: 300, steps: 1 }, context());
    await until(() => clock.pending() > 0, { what: 'the call timer' });
    clock.advance(5000);
    const result = await call;
    expect(result).toEqual({
      content: 'mcp__everything__trigger-long-running-operation timed out after 5s and was cancelled (setting mcp.toolTimeoutMs)',
      isError: true,
    });
    // The server is still up for the next call.
    expect((await executeTool(tool(m, 'mcp__everything__echo'), { message: 'after' }, context())).content).toBe('Echo: after');
  });

  it('obeys the abort signal (Esc) during a call', async () => {
    const { m } = manager([['everything', everything]]);
    await m.start();
    const controller = new AbortController();
    const call = executeTool(
      tool(m, 'mcp__everything__trigger-long-running-operation'),
      { duration: 300, steps: 300 },
      {
        ...context(controller.signal),
        // The first progress notification says the server is running it: abort then.
        onUpdate: () => controller.abort(),
      },
    );
    expect(await call).toEqual({ content: 'mcp__everything__trigger-long-running-operation was interrupted', isError: true });
  });

  it('fails one server with a readable line and starts the others', async () => {
    const { m } = manager([
      ['broken', { type: 'stdio', command: 'outrider-no-such-program' }],
      ['everything', everything],
    ]);
    await m.start();
    const [broken, ok] = m.statuses();
    expect(broken).toMatchObject({
      state: 'failed',
      tools: [],
      error: 'cannot run "outrider-no-such-program": no such program (check the command and PATH)',
    });
    expect(ok!.state).toBe('ready');
  });

  it('says when a server exits before it is ready, with the end of its stderr', async () => {
    const { m } = manager([
      ['quits', { type: 'stdio', command: process.execPath, args: ['-e', 'console.error("bad token"); process.exit(3)'] }],
    ]);
    await m.start();
    expect(m.statuses()[0]).toMatchObject({
      state: 'failed',
      error: 'the server exited before it was ready; its stderr ends: bad token',
    });
  });

  it('names a variable that is not set instead of starting the server without it', async () => {
    const { m } = manager([['needs', { type: 'stdio', command: 'x', args: ['--token', '${MCP_TEST_TOKEN}'] }]]);
    await m.start();
    expect(m.statuses()[0]!.error).toBe('it uses ${MCP_TEST_TOKEN}, which is not set; set it, or write ${NAME:-default}');
  });

  it('fails a server that does not answer within the startup timeout', async () => {
    const clock = new FakeClock();
    // `sleep` never reads the initialize request, let alone answers it.
    const { m } = manager([['silent', { type: 'stdio', command: 'sleep', args: ['300'] }]], {
      timers: clock,
      startupTimeoutMs: 1000,
    });
    const started = m.start();
    await settle();
    clock.advance(1000);
    await started;
    expect(m.statuses()[0]).toMatchObject({ state: 'failed', error: 'did not start within 1s (setting mcp.startupTimeoutMs)' });
  });

  it('marks a server that exits while running as failed, and its tools then say why', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-mcp-'));
    const pidFile = path.join(dir, 'pid');
    const wrapper = path.join(dir, 'server.sh');
    writeFileSync(wrapper, `#!/bin/sh\necho $$ > ${pidFile}\nexec ${everything.command}\n`, { mode: 0o755 });
    let changes = 0;
    const { m } = manager([['everything', { type: 'stdio', command: wrapper }]], { onToolsChanged: () => (changes += 1) });
    await m.start();
    const echo = tool(m, 'mcp__everything__echo');
    expect(changes).toBe(1);
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    await until(() => m.statuses()[0]!.state === 'failed', { what: 'the server to be marked failed' });
    expect(m.statuses()[0]!.error).toMatch(/^the server exited(;|$)/);
    expect(m.tools()).toEqual([]);
    expect(changes).toBe(2);
    expect(await executeTool(echo, { message: 'x' }, context())).toEqual({
      content: expect.stringMatching(/^MCP server "everything" is not running: the server exited/),
      isError: true,
    });
  });

  it('ends the stdio process on close', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-mcp-'));
    const pidFile = path.join(dir, 'pid');
    const wrapper = path.join(dir, 'server.sh');
    writeFileSync(wrapper, `#!/bin/sh\necho $$ > ${pidFile}\nexec ${everything.command}\n`, { mode: 0o755 });
    const { m } = manager([['everything', { type: 'stdio', command: wrapper }]]);
    await m.start();
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await m.close();
    await expectExited(pid);
  });
});

describe('McpManager over HTTP', () => {
  it('reaches the everything server over streamable HTTP, with the headers given', async () => {
    const server = await startHttpServer('streamableHttp');
    try {
      const { m } = manager([['remote', { type: 'http', url: `${server.url}/mcp`, headers: { 'X-Test': 'yes' } }]]);
      await m.start();
      expect(m.statuses()[0]).toMatchObject({ state: 'ready', transport: 'http' });
      expect((await executeTool(tool(m, 'mcp__remote__echo'), { message: 'over http' }, context())).content).toBe(
        'Echo: over http',
      );
    } finally {
      await server.close();
    }
  });

  it('reaches the everything server over the older SSE transport', async () => {
    const server = await startHttpServer('sse');
    try {
      const { m } = manager([['old', { type: 'sse', url: `${server.url}/sse` }]]);
      await m.start();
      expect(m.statuses()[0]).toMatchObject({ state: 'ready', transport: 'sse' });
      const sum = await executeTool(tool(m, 'mcp__old__get-sum'), { a: 1, b: 2 }, context());
      expect(sum.content).toBe('The sum of 1 and 2 is 3.');
    } finally {
      await server.close();
    }
  });

  it('says when nothing listens at the URL', async () => {
    const server = await startHttpServer('streamableHttp');
    const url = server.url;
    await server.close();
    const { m } = manager([['gone', { type: 'http', url: `${url}/mcp` }]]);
    await m.start();
    expect(m.statuses()[0]).toMatchObject({ state: 'failed', error: `cannot connect to ${url}: connection refused` });
  });
});
