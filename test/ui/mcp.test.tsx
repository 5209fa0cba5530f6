import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_BIN } from '../support/mcp-servers.js';
import { KEY, type TestSession, frame, keys, mountApp, openTestSession } from './harness.js';

const sessions: TestSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
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
