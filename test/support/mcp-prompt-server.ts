import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListPromptsRequestSchema, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { HostedMcpServer } from '../../src/core/index.js';

/** An in-process MCP server whose prompt list the test sets, and says it changed. */
export function promptServer(name: string, initial: Prompt[]) {
  const state = { prompts: initial };
  const server = new Server({ name, version: '1.0.0' }, { capabilities: { prompts: { listChanged: true } } });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: state.prompts }));
  const hosted: HostedMcpServer = {
    name,
    connect: () => {
      const [client, side] = InMemoryTransport.createLinkedPair();
      void server.connect(side);
      return client;
    },
  };
  return {
    hosted,
    change: async (prompts: Prompt[]) => {
      state.prompts = prompts;
      await server.sendPromptListChanged();
    },
  };
}
