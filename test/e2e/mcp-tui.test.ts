import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MCP_BIN } from '../support/mcp-servers.js';
import { expectExited } from '../support/process.js';
import { useTui } from '../support/tmux.js';
import { until } from '../support/until.js';

/** A project's .mcp.json in the real TUI under tmux: asked about, then started, counted and listed. */
const tui = useTui();

describe('MCP servers in the TUI', () => {
  it('the trust prompt lists .mcp.json servers; trusted, the footer counts them, /mcp lists them, quitting ends them', async () => {
    const project = tui.tempDir('outrider-project-');
    const pidFile = path.join(project, 'server.pid');
    const wrapper = path.join(project, 'server.sh');
    writeFileSync(wrapper, `#!/bin/sh\necho $$ > ${pidFile}\nexec ${MCP_BIN.everything}\n`, { mode: 0o755 });
    writeFileSync(path.join(project, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: wrapper } } }));
    const pane = tui.launch({ variables: tui.providerVariables(), project });

    const prompt = await pane.screen(/Ctrl\+C quit/);
    expect(prompt).toContain('Trust this folder?');
    expect(prompt).toContain('.mcp.json would start MCP servers:');
    expect(prompt).toContain(`everything ${wrapper}`);
    expect(prompt).not.toContain('would apply:');

    pane.key('y');
    await pane.screen(/mcp 1\/1/);
    pane.type('/mcp');
    const listed = await pane.screen(/mcp__everything__echo/);
    expect(listed).toMatch(/everything {2}ready {2}stdio, from \.mcp\.json, \d+ tools/);

    const pid = Number(readFileSync(pidFile, 'utf8'));
    pane.key('C-c');
    await pane.screen(/press Ctrl\+C again to quit/);
    pane.key('C-c');
    await until(() => pane.dead(), { what: 'outrider to quit' });
    await expectExited(pid);
  });

  it("the / menu lists the server's prompts with their arguments; the one chosen takes its words and sends the server's prompt", async () => {
    const project = tui.tempDir('outrider-project-');
    writeFileSync(
      path.join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { everything: { command: MCP_BIN.everything } } }),
    );
    const pane = tui.launch({ variables: tui.providerVariables(), project });
    await pane.screen(/Trust this folder\?/);
    pane.key('y');
    await pane.screen(/mcp 1\/1/);

    pane.key('-l', '/mcp__everything__ar');
    const menu = await pane.screen(/\/mcp__everything__args-prompt +<city> \[state\] · A prompt with two arguments/);
    expect(menu).toContain('› /mcp__everything__ar');
    pane.key('Tab');
    await pane.screen(/› \/mcp__everything__args-prompt /);
    tui.mock.script({ text: 'Sunny in Paris.' });
    pane.type('Paris');
    await pane.screen(/Sunny in Paris\./);
    const sent = JSON.stringify(tui.mock.requests.at(-1)!.body.messages.at(-1));
    expect(sent).toContain("What's weather in Paris?");
  });
});
