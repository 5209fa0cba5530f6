import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListPromptsRequestSchema, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { McpManager } from '../../../src/core/mcp/manager.js';
import type { McpEvent } from '../../../src/core/mcp/types.js';
import { MCP_BIN } from '../../support/mcp-servers.js';
import { REPO } from '../../support/run-cli.js';
import { until } from '../../support/until.js';

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

function start(servers: ConstructorParameters<typeof McpManager>[0]['servers']) {
  const events: McpEvent[] = [];
  const m = new McpManager({ servers, env: {}, cwd: REPO, publish: (e) => events.push(e) });
  managers.push(m);
  return { m, events };
}

/** An in-process server whose prompt list the test sets, and says it changed. */
function promptServer(name: string, initial: Prompt[] | Error) {
  const state = { prompts: initial };
  const server = new Server({ name, version: '1.0.0' }, { capabilities: { prompts: { listChanged: true } } });
  server.setRequestHandler(ListPromptsRequestSchema, () => {
    if (state.prompts instanceof Error) throw state.prompts;
    return { prompts: state.prompts };
  });
  return {
    spec: {
      name,
      source: 'sdk',
      connect: () => {
        const [client, side] = InMemoryTransport.createLinkedPair();
        void server.connect(side);
        return client;
      },
    },
    change: async (prompts: Prompt[]) => {
      state.prompts = prompts;
      await server.sendPromptListChanged();
    },
    hangUp: () => server.close(),
  };
}

describe("an MCP server's prompts in its status", () => {
  it('lists the prompts of the real everything server with their descriptions and arguments, in the event that says it is ready', async () => {
    const { m, events } = start([
      { name: 'everything', source: 'settings', entry: { type: 'stdio', command: MCP_BIN.everything } },
    ]);
    await m.start();
    const prompts = m.statuses()[0]!.prompts!;
    expect(prompts).toContainEqual({
      command: '/mcp__everything__args-prompt',
      description: 'A prompt with two arguments, one required and one optional',
      arguments: [
        { name: 'city', required: true },
        { name: 'state', required: false },
      ],
    });
    expect(prompts.map((p) => p.command)).toContain('/mcp__everything__simple-prompt');
    expect(events.find((e) => e.server.state === 'ready')!.server.prompts).toEqual(prompts);
  });

  it('reads them again when the server says its list changed, sanitized, and drops them when it stops', async () => {
    const fake = promptServer('docs', [{ name: 'summarize', description: 'Sum it up' }]);
    const { m, events } = start([fake.spec]);
    await m.start();
    expect(m.statuses()[0]!.prompts).toEqual([{ command: '/mcp__docs__summarize', description: 'Sum it up', arguments: [] }]);

    await fake.change([
      {
        name: 'review',
        description: 'Review \u001b[2J\u001b]8;;http://x\u0007it\u001b]8;;\u0007\nnow',
        arguments: [{ name: 'path' }],
      },
      { name: 'bad\u001b[31m' },
    ]);
    const changed = await until(() => events.at(-1)?.server.prompts?.[0]?.command === '/mcp__docs__review' && events.at(-1)!, {
      what: 'the changed prompts to be published',
    });
    expect(changed.server).toMatchObject({ state: 'ready' });
    expect(changed.server.prompts).toEqual([
      { command: '/mcp__docs__review', description: 'Review it now', arguments: [{ name: 'path', required: false }] },
      { command: '/mcp__docs__bad__31m', arguments: [] },
    ]);

    await fake.hangUp();
    await until(() => m.statuses()[0]!.state === 'failed', { what: 'the server to be marked failed' });
    expect(m.statuses()[0]!.prompts).toEqual([]);
  });

  it('starts a server whose prompt list fails, without prompts, and says why', async () => {
    const fake = promptServer('flaky', new Error('prompts are down'));
    const { m } = start([fake.spec]);
    await m.start();
    expect(m.statuses()[0]).toMatchObject({
      state: 'ready',
      prompts: [],
      error: expect.stringMatching(/^could not list its prompts: .*prompts are down/),
    });
  });
});
