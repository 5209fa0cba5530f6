import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_BIN } from '../support/mcp-servers.js';
import { type MockProvider, startMockProvider } from '../support/mock-provider.js';
import { expectExited } from '../support/process.js';
import { key, launch, paneDead, screen, tempDir, type, useTuiPanes } from '../support/tui-pane.js';
import { until } from '../support/until.js';

/** A project's .mcp.json in the real TUI under tmux: asked about, then started, counted and listed. */
let mock: MockProvider;
useTuiPanes();

beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());

describe('MCP servers in the TUI', () => {
  it('the trust prompt lists .mcp.json servers; trusted, the footer counts them, /mcp lists them, quitting ends them', async () => {
    const project = tempDir('outrider-project-');
    const pidFile = path.join(project, 'server.pid');
    const wrapper = path.join(project, 'server.sh');
    writeFileSync(wrapper, `#!/bin/sh\necho $$ > ${pidFile}\nexec ${MCP_BIN.everything}\n`, { mode: 0o755 });
    writeFileSync(path.join(project, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: wrapper } } }));
    const pane = launch([`ANTHROPIC_API_KEY=test`, `ANTHROPIC_BASE_URL=${mock.anthropicBaseURL}`], { project });

    const prompt = await screen(pane, /Ctrl\+C quit/);
    expect(prompt).toContain('Trust this folder?');
    expect(prompt).toContain('.mcp.json would start MCP servers:');
    expect(prompt).toContain(`everything ${wrapper}`);
    expect(prompt).not.toContain('would apply:');

    key(pane, 'y');
    await screen(pane, /mcp 1\/1/);
    type(pane, '/mcp');
    const listed = await screen(pane, /mcp__everything__echo/);
    expect(listed).toMatch(/everything {2}ready {2}stdio, from \.mcp\.json, \d+ tools/);

    const pid = Number(readFileSync(pidFile, 'utf8'));
    key(pane, 'C-c');
    await screen(pane, /press Ctrl\+C again to quit/);
    key(pane, 'C-c');
    await until(() => paneDead(pane), { what: 'outrider to quit' });
    await expectExited(pid);
  });
});
