import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { outriderPaths } from '../../src/core/config/paths.js';
import { McpManager } from '../../src/core/mcp/manager.js';
import { useMockProject } from '../support/e2e-project.js';
import { type OAuthMcpServer, approve, startOAuthMcpServer } from '../support/oauth-mcp-server.js';
import { runCli } from '../support/run-cli.js';
import { until } from '../support/until.js';

/** A remote MCP server behind OAuth, through the built binary (its bundled MCP SDK client auth). */
const t = useMockProject();

const servers: OAuthMcpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const run = (args: string[]) => runCli(args, { cwd: t.project, env: t.env, timeoutMs: 60_000 });

async function oauthServerInSettings(): Promise<OAuthMcpServer> {
  const server = await startOAuthMcpServer();
  servers.push(server);
  mkdirSync(t.home, { recursive: true });
  writeFileSync(
    path.join(t.home, 'settings.json'),
    JSON.stringify({ mcpServers: { linear: { type: 'http', url: server.url } }, permissions: { allow: ['mcp__linear__*'] } }),
  );
  return server;
}

describe('an OAuth MCP server, headless', () => {
  it('without a sign-in: one warning with the command to sign in, and the run goes on', async () => {
    await oauthServerInSettings();
    t.mock.script({ text: 'went on' });
    const result = await run(['-p', 'hi']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('went on\n');
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      'outrider: MCP server "linear" needs you to sign in (OAuth): run outrider mcp login linear (or /mcp login linear in the TUI); going on without its tools',
    ]);
  });

  it('with the sign-in stored in its home: the tool runs, an expired token refreshed, no sign-in again', async () => {
    const server = await oauthServerInSettings();
    // The sign-in as `/mcp login linear` does it, into the same home.
    const manager = new McpManager({
      servers: [{ name: 'linear', source: 'settings', entry: { type: 'http', url: server.url } }],
      env: {},
      cwd: t.project,
      publish: () => {},
      authDir: outriderPaths(t.env).mcpAuthDir,
    });
    await manager.start();
    const urls: string[] = [];
    const signedIn = manager.signIn('linear', { onAuthorizationUrl: (url) => urls.push(url) });
    await approve(await until(() => urls[0], { what: 'the authorization URL' }));
    await signedIn;
    await manager.close();
    server.expireAccessTokens();

    t.mock.script({ toolCalls: [{ name: 'mcp__linear__whoami', args: {} }] }, { text: 'asked' });
    const result = await run(['-p', 'who am I?']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const body = t.mock.requests[1]!.body as { messages: Array<{ content: Array<{ type: string; content?: unknown }> }> };
    expect(JSON.stringify(body.messages.at(-1)!.content)).toContain('signed in as ');
    expect(server.counts).toEqual({ registrations: 1, authorizationCode: 1, refreshToken: 1 });
    for (const token of server.issued()) expect(result.stdout + result.stderr).not.toContain(token);
  });
});
