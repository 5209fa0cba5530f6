import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerEntry, McpServerSpec } from '../../../src/core/config/mcp-servers.js';
import { McpManager, type McpManagerOptions } from '../../../src/core/mcp/manager.js';
import { OAuthStore } from '../../../src/core/mcp/oauth-store.js';
import { failureWarnings } from '../../../src/core/mcp/session-mcp.js';
import type { McpEvent } from '../../../src/core/mcp/types.js';
import { executeTool } from '../../../src/core/tools/registry.js';
import { FakeClock, settle } from '../../support/fake-clock.js';
import { type OAuthMcpServer, approve, startOAuthMcpServer } from '../../support/oauth-mcp-server.js';
import { REPO } from '../../support/run-cli.js';
import { until } from '../../support/until.js';

const servers: OAuthMcpServer[] = [];
const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function oauthServer(): Promise<OAuthMcpServer> {
  const server = await startOAuthMcpServer();
  servers.push(server);
  return server;
}

const authDir = () => path.join(mkdtempSync(path.join(os.tmpdir(), 'outrider-oauth-')), 'home', 'mcp-auth');

function manager(entries: Array<[string, McpServerEntry]>, options: Partial<McpManagerOptions> & { authDir: string }) {
  const events: McpEvent[] = [];
  const specs: McpServerSpec[] = entries.map(([name, entry]) => ({ name, source: 'settings', entry }));
  const m = new McpManager({ servers: specs, env: {}, cwd: REPO, publish: (e) => events.push(e), ...options });
  managers.push(m);
  return { m, events };
}

const context = { signal: new AbortController().signal, workspace: { root: REPO, extraDirs: [] } };
const call = async (m: McpManager, name: string) => {
  const tool = m.tools().find((t) => t.name === name);
  if (!tool)
    throw new Error(
      `no tool ${name}: ${m
        .tools()
        .map((t) => t.name)
        .join(', ')}`,
    );
  return (await executeTool(tool, {}, context)).content;
};

/** Starts a sign-in and waits for the page it asks the user to open. */
async function startSignIn(m: McpManager, name: string, signal?: AbortSignal) {
  const urls: string[] = [];
  const done = m.signIn(name, { onAuthorizationUrl: (url) => urls.push(url), ...(signal ? { signal } : {}) });
  done.catch(() => {}); // awaited by the test, sometimes after it failed
  const url = await until(() => urls[0], { what: 'the authorization URL' });
  return { url: new URL(url), done };
}

const stored = (dir: string, url: string) => new OAuthStore(dir).read(new URL(url));

describe('OAuth sign-in to a remote MCP server', () => {
  it('a server that asks for a sign-in is needs-auth, not failed, and nothing is registered or stored until the user signs in', async () => {
    const server = await oauthServer();
    const dir = authDir();
    const { m } = manager([['linear', { type: 'http', url: server.url }]], { authDir: dir });
    await m.start();
    expect(m.statuses()[0]).toMatchObject({ state: 'needs-auth', tools: [], error: 'the server asks for a sign-in (OAuth)' });
    expect(m.tools()).toEqual([]);
    expect(server.counts.registrations).toBe(0);
    expect(stored(dir, server.url)).toEqual({ serverUrl: server.url });
    expect(failureWarnings(m.statuses())).toEqual([
      'MCP server "linear" needs you to sign in (OAuth): run outrider mcp login linear (or /mcp login linear in the TUI); going on without its tools',
    ]);
  });

  it('signs in (registration, PKCE, the local callback), keeps the tokens 0600 in a 0700 folder, and the tools join', async () => {
    const [linear, notion] = [await oauthServer(), await oauthServer()];
    const dir = authDir();
    let toolChanges = 0;
    const { m } = manager(
      [
        ['linear', { type: 'http', url: linear.url }],
        ['notion', { type: 'http', url: notion.url }],
      ],
      { authDir: dir, onToolsChanged: () => (toolChanges += 1) },
    );
    await m.start();
    const { url, done } = await startSignIn(m, 'linear');

    const params = url.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('state')).toMatch(/^[\w-]{43}$/);
    expect(params.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(params.get('resource')).toBe(linear.url);
    expect(linear.counts.registrations).toBe(1);

    const answer = await approve(url.href);
    expect(answer).toMatchObject({ status: 200, text: expect.stringContaining('Signed in to linear') });
    await done;

    expect(m.statuses()[0]).toMatchObject({ state: 'ready', tools: ['mcp__linear__whoami'] });
    expect(await call(m, 'mcp__linear__whoami')).toMatch(/^signed in as [\w-]+$/);
    expect(toolChanges).toBeGreaterThan(0);
    expect(linear.counts).toMatchObject({ registrations: 1, authorizationCode: 1 });
    // The other server's sign-in is its own: still none.
    expect(m.statuses()[1]).toMatchObject({ state: 'needs-auth' });
    expect(stored(dir, notion.url)).toEqual({ serverUrl: notion.url });

    const files = readdirSync(dir);
    expect(files).toEqual([path.basename(new OAuthStore(dir).fileFor(new URL(linear.url)))]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, files[0]!)).mode & 0o777).toBe(0o600);
    const kept = stored(dir, linear.url);
    expect(linear.issued()).toContain(kept.tokens?.access_token);
    expect(linear.issued()).toContain(kept.tokens?.refresh_token);
    expect(kept.codeVerifier).toBeUndefined();
    // The local callback is closed once the sign-in is over.
    await expect(fetch(answer.callback)).rejects.toThrow();
  });

  it('refuses a callback whose state is not the sign-in’s, and goes on waiting for the right one', async () => {
    const server = await oauthServer();
    const dir = authDir();
    const { m } = manager([['linear', { type: 'http', url: server.url }]], { authDir: dir });
    await m.start();
    const { url, done } = await startSignIn(m, 'linear');

    const forged = await approve(url.href, { state: 'forged-state' });
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('does not belong to the sign-in outrider is waiting for');
    expect(server.counts.authorizationCode).toBe(0);
    expect(stored(dir, server.url).tokens).toBeUndefined();
    expect(m.statuses()[0]!.state).toBe('needs-auth');

    expect((await approve(url.href)).status).toBe(200);
    await done;
    expect(m.statuses()[0]!.state).toBe('ready');
  });

  it('gives up when the browser never comes back, at the deadline, saying what to do; the callback is closed', async () => {
    const server = await oauthServer();
    const clock = new FakeClock();
    const dir = authDir();
    const { m } = manager([['linear', { type: 'http', url: server.url }]], { authDir: dir, timers: clock });
    await m.start();
    const { url, done } = await startSignIn(m, 'linear');
    const redirect = url.searchParams.get('redirect_uri')!;
    let settled = false;
    void done.then(
      () => (settled = true),
      () => (settled = true),
    );
    clock.advance(5 * 60_000 - 1);
    await settle(5);
    expect(settled).toBe(false);
    clock.advance(1);
    await expect(done).rejects.toThrow(
      `sign-in to "linear" failed: nobody signed in within 5m00s (the browser never came back to ${redirect}); /mcp login linear starts another`,
    );
    expect(m.statuses()[0]!.state).toBe('needs-auth');
    await expect(fetch(redirect)).rejects.toThrow();
    expect(stored(dir, server.url)).toEqual({
      serverUrl: server.url,
      client: expect.objectContaining({ client_id: expect.any(String) }),
    });
  });

  it('is cancelled by its signal', async () => {
    const server = await oauthServer();
    const { m } = manager([['linear', { type: 'http', url: server.url }]], { authDir: authDir() });
    await m.start();
    const cancel = new AbortController();
    const { done } = await startSignIn(m, 'linear', cancel.signal);
    cancel.abort();
    await expect(done).rejects.toThrow('sign-in to "linear" failed: the sign-in was cancelled');
  });

  it('a later session uses the stored sign-in; an expired access token is refreshed, running or at the start', async () => {
    const server = await oauthServer();
    const dir = authDir();
    const first = manager([['linear', { type: 'http', url: server.url }]], { authDir: dir });
    await first.m.start();
    const { url, done } = await startSignIn(first.m, 'linear');
    await approve(url.href);
    await done;

    // Running: the server turns the access token down, the SDK refreshes it and sends the call again.
    const before = stored(dir, server.url).tokens!;
    server.expireAccessTokens();
    expect(await call(first.m, 'mcp__linear__whoami')).toMatch(/^signed in as /);
    expect(server.counts.refreshToken).toBe(1);
    const after = stored(dir, server.url).tokens!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    await first.m.close();

    // A new session: no sign-in, no registration; the expired token refreshed at the start.
    server.expireAccessTokens();
    const second = manager([['linear', { type: 'http', url: server.url }]], { authDir: dir });
    await second.m.start();
    expect(second.m.statuses()[0]).toMatchObject({ state: 'ready', tools: ['mcp__linear__whoami'] });
    expect(server.counts).toEqual({ registrations: 1, authorizationCode: 1, refreshToken: 2 });
  });

  it('tokens that can no longer be refreshed are dropped, and the server is needs-auth again', async () => {
    const server = await oauthServer();
    const dir = authDir();
    const first = manager([['linear', { type: 'http', url: server.url }]], { authDir: dir });
    await first.m.start();
    const { url, done } = await startSignIn(first.m, 'linear');
    await approve(url.href);
    await done;
    await first.m.close();

    const file = new OAuthStore(dir).fileFor(new URL(server.url));
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...kept, tokens: { ...kept.tokens, refresh_token: 'rt-revoked' } }));
    server.expireAccessTokens();
    const second = manager([['linear', { type: 'http', url: server.url }]], { authDir: dir });
    await second.m.start();
    expect(second.m.statuses()[0]).toMatchObject({ state: 'needs-auth' });
    expect(stored(dir, server.url).tokens).toBeUndefined();
    expect(stored(dir, server.url).client).toBeDefined();
  });

  it('signs out: the stored sign-in is forgotten and the server asks again', async () => {
    const server = await oauthServer();
    const dir = authDir();
    const { m } = manager([['linear', { type: 'http', url: server.url }]], { authDir: dir });
    await m.start();
    const { url, done } = await startSignIn(m, 'linear');
    await approve(url.href);
    await done;
    await m.signOut('linear');
    expect(m.statuses()[0]).toMatchObject({ state: 'needs-auth', tools: [] });
    expect(m.tools()).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('says why a server cannot be signed in to', async () => {
    const { m } = manager([['local', { type: 'stdio', command: 'true' }]], { authDir: authDir() });
    await expect(m.signIn('nope', { onAuthorizationUrl: () => {} })).rejects.toThrow(
      'no MCP server is named "nope" (there are: local); /mcp lists them',
    );
    await expect(m.signIn('local', { onAuthorizationUrl: () => {} })).rejects.toThrow(
      'MCP server "local" is a local program (stdio): it has no sign-in',
    );
  });

  it('leaves a server whose entry sets its own Authorization header alone: a 401 is a failure', async () => {
    const server = await oauthServer();
    const { m } = manager([['keyed', { type: 'http', url: server.url, headers: { Authorization: 'Bearer wrong' } }]], {
      authDir: authDir(),
    });
    await m.start();
    expect(m.statuses()[0]!.state).toBe('failed');
    expect(server.counts.registrations).toBe(0);
  });
});
