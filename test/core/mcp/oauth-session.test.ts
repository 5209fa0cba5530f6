import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest, ToolResultBlock } from '../../../src/core/providers/types.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import { openSession } from '../../../src/core/session/open-session.js';
import type { OpenedSession } from '../../../src/core/session/opened-session.js';
import { type FakeReply, fakeStream } from '../../support/fake-stream.js';
import { type OAuthMcpServer, approve, startOAuthMcpServer } from '../../support/oauth-mcp-server.js';
import { type TestDirs, testDirs } from '../../support/test-session.js';
import { until } from '../../support/until.js';

const opened: OpenedSession[] = [];
const servers: OAuthMcpServer[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A real session whose user settings name the OAuth server `linear`, over a fake stream. */
async function open(dirs: TestDirs, server: OAuthMcpServer, headless: boolean, respond: (r: ModelRequest) => FakeReply) {
  mkdirSync(dirs.env.OUTRIDER_HOME!, { recursive: true });
  writeFileSync(
    path.join(dirs.env.OUTRIDER_HOME!, 'settings.json'),
    JSON.stringify({ mcpServers: { linear: { type: 'http', url: server.url } }, permissions: { allow: ['mcp__linear__*'] } }),
  );
  const stream = fakeStream(respond);
  const session = await openSession({ ...dirs, headless, flags: {}, stream });
  opened.push(session);
  const events: SessionEvent[] = [];
  session.events.subscribe(({ event }) => events.push(event));
  return { session, stream, events };
}

const callWhoami = (request: ModelRequest): FakeReply =>
  request.messages.length === 1 ? { toolCalls: [{ name: 'mcp__linear__whoami', args: {} }] } : { text: 'done' };

/** Every file under `dir`, with its text. */
function filesUnder(dir: string): Array<{ file: string; text: string }> {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

describe('OAuth MCP servers in a session', () => {
  it('headless: a server that needs a sign-in is a warning naming the command, and the run goes on without it', async () => {
    const server = await startOAuthMcpServer();
    servers.push(server);
    const { session } = await open(testDirs(), server, true, () => ({ text: 'ok' }));
    expect(session.mcp.statuses()).toMatchObject([{ name: 'linear', state: 'needs-auth' }]);
    expect(session.warnings).toContain(
      'MCP server "linear" needs you to sign in (OAuth): run outrider mcp login linear (or /mcp login linear in the TUI); going on without its tools',
    );
  });

  it('signs in, its tool runs in a turn, no token reaches the transcript or the events; the next session needs no sign-in', async () => {
    const server = await startOAuthMcpServer();
    servers.push(server);
    const dirs = testDirs();
    const { session, stream, events } = await open(dirs, server, false, callWhoami);
    await session.mcp.ready();
    expect(session.mcp.statuses()[0]!.state).toBe('needs-auth');
    const urls: string[] = [];
    const signedIn = session.mcp.signIn('linear', { onAuthorizationUrl: (url) => urls.push(url) });
    await approve(await until(() => urls[0], { what: 'the authorization URL' }));
    await signedIn;
    expect(session.mcp.statuses()[0]).toMatchObject({ state: 'ready', tools: ['mcp__linear__whoami'] });

    await session.session.submit('who am I?', new AbortController().signal);
    expect(stream.requests[0]!.tools.map((t) => t.name)).toContain('mcp__linear__whoami');
    const result = stream.requests[1]!.messages.at(-1)!.content[0] as ToolResultBlock;
    expect(result).toMatchObject({ content: expect.stringMatching(/^signed in as /) });
    await session.close();

    const tokens = server.issued();
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    const home = dirs.env.OUTRIDER_HOME!;
    const elsewhere = filesUnder(home).filter(({ file }) => !file.startsWith(path.join(home, 'mcp-auth')));
    expect(elsewhere.some(({ file }) => file.endsWith('transcript.jsonl'))).toBe(true);
    for (const { file, text } of [...elsewhere, { file: 'the events', text: JSON.stringify(events) }]) {
      for (const token of tokens) expect(text.includes(token), `${file} holds a token`).toBe(false);
    }
    // Where they are kept: the one file under mcp-auth.
    expect(filesUnder(path.join(home, 'mcp-auth')).filter(({ text }) => tokens.some((t) => text.includes(t)))).toHaveLength(1);

    const again = await open(dirs, server, true, () => ({ text: 'ok' }));
    expect(again.session.mcp.statuses()).toMatchObject([{ state: 'ready' }]);
    expect(again.session.warnings).toEqual([]);
    expect(server.counts).toMatchObject({ registrations: 1, authorizationCode: 1 });
  });
});
