import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest, ToolResultBlock } from '../../../src/core/providers/types.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import { openSession } from '../../../src/core/session/open-session.js';
import type { OpenedSession } from '../../../src/core/session/opened-session.js';
import { type FakeReply, fakeStream } from '../../support/fake-stream.js';
import { MCP_BIN } from '../../support/mcp-servers.js';
import { isChildRequest, testDirs } from '../../support/test-session.js';

const opened: OpenedSession[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

const everything = { everything: { command: MCP_BIN.everything } };

/** A real session (openSession) whose user settings are `settings`, over a fake stream. */
async function open(
  settings: Record<string, unknown>,
  respond: (request: ModelRequest) => FakeReply,
  options: { headless: boolean; prepare?: (cwd: string) => void },
) {
  const dirs = testDirs();
  options.prepare?.(dirs.cwd);
  mkdirSync(dirs.env.OUTRIDER_HOME!, { recursive: true });
  writeFileSync(path.join(dirs.env.OUTRIDER_HOME!, 'settings.json'), JSON.stringify(settings));
  const stream = fakeStream(respond);
  const session = await openSession({ ...dirs, headless: options.headless, flags: {}, stream });
  opened.push(session);
  const events: SessionEvent[] = [];
  session.events.subscribe(({ event }) => events.push(event));
  const submit = (prompt: string) => session.session.submit(prompt, new AbortController().signal);
  return { session, stream, events, submit, cwd: dirs.cwd };
}

const toolNames = (request: ModelRequest) => request.tools.map((t) => t.name);
const lastResult = (request: ModelRequest) => request.messages.at(-1)!.content[0] as ToolResultBlock;

describe('MCP servers in a session', () => {
  it('headless: the first request already offers the tools, and permissions.allow lets them run', async () => {
    const { session, stream, submit } = await open(
      { mcpServers: everything, permissions: { allow: ['mcp__everything__*'] } },
      (request) =>
        request.messages.length === 1
          ? { toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'ping' } }] }
          : { text: 'done' },
      { headless: true },
    );
    expect(session.mcp.statuses()).toMatchObject([{ name: 'everything', state: 'ready', source: 'settings' }]);
    await submit('echo it');
    expect(toolNames(stream.requests[0]!)).toContain('mcp__everything__echo');
    const echo = stream.requests[0]!.tools.find((t) => t.name === 'mcp__everything__echo')!;
    expect(echo.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
    expect(lastResult(stream.requests[1]!)).toMatchObject({ content: 'Echo: ping' });
    expect(session.warnings).toEqual([]);
  });

  it('headless without an allow rule: the call is denied like any tool that asks, and the system prompt does not change', async () => {
    const { stream, submit } = await open(
      { mcpServers: everything },
      (request) =>
        request.messages.length === 1
          ? { toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'ping' } }] }
          : { text: 'ok' },
      { headless: true },
    );
    await submit('echo it');
    expect(lastResult(stream.requests[1]!)).toMatchObject({
      isError: true,
      content: expect.stringContaining('mcp__everything__echo needs approval'),
    });
    expect(stream.requests[0]!.system).not.toContain('mcp__');
  });

  it('TUI: the session opens before the servers are up; their tools join at the next turn, never inside one', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const { session, stream, events, submit } = await open(
      { mcpServers: everything },
      (request) => {
        const user = request.messages.filter((m) => m.role === 'user').length;
        // The first turn: one tool call that waits, so the server comes up while the turn runs.
        if (request.messages.length === 1) return { toolCalls: [{ name: 'read_file', args: { path: 'nope' } }], wait: held };
        return user > 2 ? { text: 'second' } : { text: 'first' };
      },
      { headless: false },
    );
    expect(session.mcp.statuses()[0]!.state).toBe('starting');
    const first = submit('one');
    await session.mcp.ready();
    release();
    await first;
    // Both requests of the first turn offered the same tools: the server's joined later.
    expect(toolNames(stream.requests[0]!)).toEqual(toolNames(stream.requests[1]!));
    expect(toolNames(stream.requests[0]!).some((n) => n.startsWith('mcp__'))).toBe(false);

    await submit('two');
    expect(toolNames(stream.requests[2]!)).toContain('mcp__everything__get-sum');
    const changed = events.find((e) => e.type === 'tools_changed');
    expect(changed).toMatchObject({ removed: [], added: expect.arrayContaining(['mcp__everything__echo']) });
    const types = events.map((e) => e.type);
    expect(types.indexOf('tools_changed')).toBeGreaterThan(types.lastIndexOf('submit'));
    expect(types).toContain('mcp_server');
  });

  it('a sub-agent gets MCP tools through its definition (mcp__everything__* patterns)', async () => {
    const { stream, submit } = await open(
      { mcpServers: everything, permissions: { allow: ['mcp__everything__*'] } },
      (request) => {
        if (isChildRequest(request)) {
          return request.messages.length === 1
            ? { toolCalls: [{ name: 'mcp__everything__get-sum', args: { a: 1, b: 2 } }] }
            : { text: 'sum found' };
        }
        if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'add', agent: 'adder' } }] };
        return { text: 'parent done' };
      },
      {
        headless: true,
        prepare: (cwd) => {
          mkdirSync(path.join(cwd, '.outrider', 'agents'), { recursive: true });
          writeFileSync(
            path.join(cwd, '.outrider', 'agents', 'adder.md'),
            '---\nname: adder\ndescription: adds numbers\ntools: read_file, mcp__everything__get-*\n---\nYou add numbers.\n',
          );
        },
      },
    );
    await submit('add them');
    await opened[0]!.waitForAgents(new AbortController().signal);
    const child = stream.requests.filter(isChildRequest);
    expect(toolNames(child[0]!).filter((n) => n.startsWith('mcp__'))).toEqual(
      expect.arrayContaining(['mcp__everything__get-sum', 'mcp__everything__get-tiny-image']),
    );
    expect(toolNames(child[0]!)).not.toContain('mcp__everything__echo');
    expect(toolNames(child[0]!)).toContain('read_file');
    expect(lastResult(child[1]!)).toMatchObject({ content: 'The sum of 1 and 2 is 3.' });
  });
});
