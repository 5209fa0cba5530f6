import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_BIN } from '../support/mcp-servers.js';
import { type OAuthMcpServer, approve, startOAuthMcpServer } from '../support/oauth-mcp-server.js';
import { KEY, type TestSession, frame, keys, mountApp, openTestSession } from './harness.js';

const sessions: TestSession[] = [];
const servers: OAuthMcpServer[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A session whose user settings start a real server and one that cannot start. */
async function openWithServers(): Promise<TestSession> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-ui-mcp-'));
  mkdirSync(path.join(dir, '.home'), { recursive: true });
  writeFileSync(
    path.join(dir, '.home', 'settings.json'),
    JSON.stringify({
      mcpServers: { everything: { command: MCP_BIN.everything }, broken: { command: 'outrider-no-such-program' } },
    }),
  );
  const session = await openTestSession([{ text: 'ok' }], { dir });
  sessions.push(session);
  return session;
}

describe('MCP servers in the TUI', () => {
  it('shows mcp n/m in the footer, one warning for the server that failed, and /mcp lists them', async () => {
    const s = await openWithServers();
    const { rendered, until } = await mountApp(s);
    // The app is up before the servers are.
    await until(() => frame(rendered).includes('ctx 0'));
    const text = await until(() => frame(rendered).includes('mcp 1/2') && frame(rendered), 'the footer to count one server up');
    const warnings = text.split('\n').filter((line) => line.includes('MCP server "broken" failed'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('cannot run "outrider-no-such-program": no such program');

    await keys(rendered, '/mcp', KEY.enter);
    const listed = await until(() => frame(rendered).includes('MCP servers') && frame(rendered), '/mcp to answer');
    expect(listed).toMatch(/everything {2}ready {2}stdio, from settings, \d+ tools/);
    expect(listed).toContain('mcp__everything__echo');
    expect(listed).toContain('broken  failed  stdio, from settings');
    expect(listed).toContain('last error: cannot run "outrider-no-such-program"');
  });
});

describe('MCP sign-in in the TUI', () => {
  it('shows needs-auth with the command; /mcp login shows the page to open, and the server comes up once signed in', async () => {
    // No graphical display: the page is shown, and no browser is started by the test.
    const display = { DISPLAY: process.env.DISPLAY, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };
    delete process.env.DISPLAY;
    delete process.env.WAYLAND_DISPLAY;
    try {
      const server = await startOAuthMcpServer();
      servers.push(server);
      const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-ui-oauth-'));
      mkdirSync(path.join(dir, '.home'), { recursive: true });
      writeFileSync(
        path.join(dir, '.home', 'settings.json'),
        JSON.stringify({ mcpServers: { linear: { type: 'http', url: server.url } } }),
      );
      const s = await openTestSession([{ text: 'ok' }], { dir });
      sessions.push(s);
      // The page the UI is handed, seen on its way (the frame wraps a long URL).
      const urls: string[] = [];
      const mcp = s.ui.mcp!;
      s.ui = {
        ...s.ui,
        mcp: {
          ...mcp,
          signIn: (name, request) =>
            mcp.signIn(name, { ...request, onAuthorizationUrl: (url) => (urls.push(url), request.onAuthorizationUrl(url)) }),
        },
      };
      const { rendered, until } = await mountApp(s);
      const warned = await until(() => frame(rendered).includes('needs you to sign in') && frame(rendered), 'the sign-in notice');
      expect(warned).toContain('MCP server "linear" needs you to sign in: /mcp login linear');

      await keys(rendered, '/mcp', KEY.enter);
      const listed = await until(() => frame(rendered).includes('MCP servers') && frame(rendered), '/mcp to answer');
      expect(listed).toContain('linear  needs-auth  http, from settings');
      expect(listed).toContain('sign in: /mcp login linear');

      await keys(rendered, '/mcp login linear', KEY.enter);
      const shown = await until(() => frame(rendered).includes('open this page') && frame(rendered), 'the page to open');
      expect(shown).toContain('sign in to "linear": open this page in a browser (waiting up to 5 minutes');
      expect(urls).toHaveLength(1);
      expect(shown.replace(/\s/g, '')).toContain(urls[0]!.slice(0, 60));

      expect((await approve(urls[0]!)).status).toBe(200);
      await until(() => frame(rendered).includes('signed in to "linear"'), 'the sign-in to finish');
      await until(() => frame(rendered).includes('mcp 1/1'), 'the footer to count the server up');
    } finally {
      for (const [name, value] of Object.entries(display)) if (value !== undefined) process.env[name] = value;
    }
  });
});
