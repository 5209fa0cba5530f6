import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { afterEach, describe, expect, it } from 'vitest';
import { type AcpPeer, AcpSession } from '../../../src/cli/acp/acp-session.js';
import type { HostedMcpServer } from '../../../src/core/index.js';
import { promptServer } from '../../support/mcp-prompt-server.js';
import { testDirs } from '../../support/test-session.js';
import { until } from '../../support/until.js';

const sessions: AcpSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

async function open(hosted: HostedMcpServer) {
  const updates: SessionUpdate[] = [];
  const peer: AcpPeer = {
    update: (_id, update) => updates.push(update),
    requestPermission: () => Promise.reject(new Error('no questions in this test')),
    subagents: false,
    warn: () => {},
  };
  const dirs = testDirs();
  const session = await AcpSession.open({ ...dirs, headless: false, flags: {}, sdkMcpServers: [hosted] }, peer, {
    cwd: dirs.cwd,
    waitAgents: false,
  });
  sessions.push(session);
  const offers = () => updates.filter((u) => u.sessionUpdate === 'available_commands_update');
  return { session, offers };
}

describe("ACP's available_commands_update", () => {
  it("offers the MCP servers' prompts with their argument hints, and offers again when a server's prompts change", async () => {
    const docs = promptServer('docs', [
      {
        name: 'summarize',
        description: 'Sum it up',
        arguments: [{ name: 'path', required: true }, { name: 'style' }],
      },
    ]);
    const { session, offers } = await open(docs.hosted);
    await session.opened.mcp.ready();
    // Nothing before the first offer: the editor learns the session's id from session/new's answer, which comes first.
    expect(offers()).toEqual([]);

    session.announceCommands();
    expect(offers()).toEqual([
      {
        sessionUpdate: 'available_commands_update',
        availableCommands: [{ name: 'mcp__docs__summarize', description: 'Sum it up', input: { hint: '<path> [style]' } }],
      },
    ]);

    await docs.change([{ name: 'review' }]);
    await until(() => offers().length === 2, { what: 'the commands to be offered again' });
    expect(offers()[1]).toEqual({
      sessionUpdate: 'available_commands_update',
      availableCommands: [{ name: 'mcp__docs__review', description: 'mcp__docs__review' }],
    });
    // The same list is not offered twice.
    session.announceCommands();
    expect(offers()).toHaveLength(2);
  });
});
