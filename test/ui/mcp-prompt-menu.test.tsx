import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerStatus } from '../../src/core/index.js';
import { fakeStream } from '../support/fake-stream.js';
import { MCP_BIN } from '../support/mcp-servers.js';
import { KEY, type TestSession, frame, keys, mountApp, openTestSession } from './harness.js';

const sessions: TestSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

const TAB = '\t';

/** A server's state as the session publishes it (what `OpenedSession.mcp.statuses()` holds). */
function status(name: string, overrides: Partial<McpServerStatus>): McpServerStatus {
  return { name, source: 'settings', transport: 'stdio', state: 'ready', tools: [], ...overrides };
}

/** The input's line, its border and prompt mark taken off. */
function inputLine(text: string): string {
  const line = text.split('\n').find((l) => l.startsWith('│ › ')) ?? '';
  return line.replace(/^│ › /, '').replace(/\s*│$/, '');
}

async function openWith(...servers: McpServerStatus[]) {
  const stream = fakeStream([{ text: 'answered' }]);
  const s = await openTestSession([], { stream });
  sessions.push(s);
  const publish = (server: McpServerStatus) =>
    s.opened.events.publish({ type: 'mcp_server', server }, { state: `mcp_server:${server.name}` });
  for (const server of servers) publish(server);
  const app = await mountApp(s);
  return { ...app, stream, publish };
}

const docs = status('docs', {
  prompts: [
    {
      command: '/mcp__docs__review',
      description: 'Review a file for bugs',
      arguments: [
        { name: 'path', required: true },
        { name: 'focus', required: false },
      ],
    },
    { command: '/mcp__docs__summarize', arguments: [] },
  ],
});

describe("MCP servers' prompts in the / menu", () => {
  it('lists each prompt of a running server with its arguments and description as /mcp is typed', async () => {
    const { rendered, until } = await openWith(
      docs,
      status('down', {
        state: 'failed',
        prompts: docs.prompts!.map((p) => ({ ...p, command: p.command.replace('docs', 'down') })),
      }),
    );
    await keys(rendered, '/mcp');
    const text = await until(() => frame(rendered).includes('/mcp__docs__review') && frame(rendered), 'the menu');
    expect(text).toMatch(/\/mcp__docs__review\s+<path> \[focus\] · Review a file for bugs/);
    expect(text).toMatch(/\/mcp__docs__summarize\s+MCP prompt/);
    expect(text).not.toContain('mcp__down__');
  });

  it('Enter puts the chosen prompt in the input to take its arguments; Enter again sends it as a prompt', async () => {
    const { rendered, until, stream } = await openWith(docs);
    await keys(rendered, '/mcp__d');
    await until(() => frame(rendered).includes('/mcp__docs__summarize'), 'the menu');
    await keys(rendered, KEY.enter);
    expect(inputLine(frame(rendered))).toBe('/mcp__docs__review');
    expect(stream.requests).toHaveLength(0);
    await keys(rendered, 'src/app.ts', KEY.enter);
    // Not an unknown command: the core expands it (here no server runs it, so it goes as typed).
    await until(() => frame(rendered).includes('answered'), 'the turn');
    expect(JSON.stringify(stream.requests[0]!.messages.at(-1))).toContain('/mcp__docs__review src/app.ts');
    expect(frame(rendered)).not.toContain('unknown command');
  });

  it('Tab puts the selected one in the input too, and a command typed whole runs on Enter', async () => {
    const { rendered, until, stream } = await openWith(docs);
    await keys(rendered, '/mcp__docs');
    await until(() => frame(rendered).includes('/mcp__docs__summarize'), 'the menu');
    await keys(rendered, KEY.down, TAB);
    expect(inputLine(frame(rendered))).toBe('/mcp__docs__summarize');
    await keys(rendered, KEY.ctrlA, KEY.ctrlK, '/mcp__docs__summarize', KEY.enter);
    await until(() => stream.requests.length === 1, 'the prompt to be sent');
    expect(JSON.stringify(stream.requests[0]!.messages.at(-1))).toContain('/mcp__docs__summarize');
  });

  it('/mcp typed whole still runs /mcp, though prompts match it; one picked with ↓ is put in the input', async () => {
    const { rendered, until } = await openWith(docs);
    await keys(rendered, '/mcp');
    const menu = await until(() => frame(rendered).includes('/mcp__docs__review') && frame(rendered), 'the menu');
    expect(menu).toMatch(/\/mcp\s+MCP servers: state, tools, last error/);
    await keys(rendered, KEY.enter);
    await until(() => frame(rendered).includes('docs  ready'), '/mcp to answer');
    await keys(rendered, '/mcp');
    await until(() => frame(rendered).includes('/mcp__docs__review'), 'the menu again');
    await keys(rendered, KEY.down, KEY.enter);
    expect(inputLine(frame(rendered))).toBe('/mcp__docs__review');
  });

  it('a built-in the menu does not list, typed whole, runs on Enter rather than a prompt named like it', async () => {
    const { rendered, until } = await openWith(
      status('notes', { prompts: [{ command: '/mcp__notes__memory-notes', description: 'Notes', arguments: [] }] }),
    );
    await keys(rendered, '/memory');
    await until(() => frame(rendered).includes('/mcp__notes__memory-notes'), 'the menu');
    await keys(rendered, KEY.enter);
    await until(() => frame(rendered).includes('no instruction files'), '/memory to answer');
    expect(inputLine(frame(rendered))).toBe('');
  });

  it('follows the servers: prompts appear when a server comes up or changes its list, and go when it stops', async () => {
    const { rendered, until, publish } = await openWith(status('docs', { state: 'starting' }));
    await keys(rendered, '/mcp__');
    expect(frame(rendered)).not.toContain('/mcp__docs__');
    publish(docs);
    await until(() => frame(rendered).includes('/mcp__docs__review'), 'the prompts once it is up');
    publish({ ...docs, prompts: [{ command: '/mcp__docs__translate', description: 'Translate it', arguments: [] }] });
    await until(
      () => frame(rendered).includes('/mcp__docs__translate') && !frame(rendered).includes('/mcp__docs__review'),
      'the new list',
    );
    publish({ ...docs, state: 'failed', prompts: [], error: 'the server exited' });
    await until(() => !frame(rendered).includes('/mcp__docs__translate'), 'the prompts gone');
  });

  it('shows what a server sent only as one safe line, and skips what is not a prompt command', async () => {
    const hostile = status('evil', {
      prompts: [
        {
          command: '/mcp__evil__ok',
          description: 'clear \u001b[2J\u001b]0;title\u0007 the\nscreen \u202e' + 'x'.repeat(500),
          arguments: [{ name: 'a\u001b[1A', required: true }],
        },
        { command: '/mcp__evil__x\u001b[31m', arguments: [] },
        { command: '/rm -rf', arguments: [] },
        { command: 'mcp__evil__noslash', arguments: [] },
      ],
    });
    const { rendered, until } = await openWith(hostile);
    await keys(rendered, '/mcp__evil');
    const text = await until(() => frame(rendered).includes('/mcp__evil__ok') && frame(rendered), 'the menu');
    expect([...text].filter((c) => c !== '\n' && (c < ' ' || c === '\u007f' || c === '\u202e'))).toEqual([]);
    expect(text).toContain('clear \\u{1b}[2J');
    expect(text).toContain('<a\\u{1b}[1A>');
    expect(text).not.toContain('/mcp__evil__x');
    expect(text).not.toContain('rm -rf');
    expect(text).not.toContain('noslash');
    // One line for it in the menu, however long its description.
    expect(text.split('\n').filter((line) => line.includes('/mcp__evil__'))).toHaveLength(1);
  });
});

describe('the everything server in the TUI', () => {
  it("lists its prompts; the one chosen, with a word typed after it, sends the server's prompt", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-ui-mcp-prompts-'));
    mkdirSync(path.join(dir, '.home'), { recursive: true });
    writeFileSync(
      path.join(dir, '.home', 'settings.json'),
      JSON.stringify({ mcpServers: { everything: { command: MCP_BIN.everything } } }),
    );
    const stream = fakeStream([{ text: 'sunny' }]);
    const s = await openTestSession([], { dir, stream });
    sessions.push(s);
    const { rendered, until } = await mountApp(s);
    await until(() => frame(rendered).includes('mcp 1/1'), 'the server to be up');
    await keys(rendered, '/mcp__everything__ar');
    const text = await until(() => frame(rendered).includes('/mcp__everything__args-prompt') && frame(rendered), 'the menu');
    expect(text).toMatch(/\/mcp__everything__args-prompt\s+<city> \[state\] · A prompt with two arguments/);
    await keys(rendered, KEY.enter, 'Paris', KEY.enter);
    await until(() => frame(rendered).includes('sunny'), 'the turn');
    expect(JSON.stringify(stream.requests[0]!.messages.at(-1))).toContain("What's weather in Paris?");
  });
});
