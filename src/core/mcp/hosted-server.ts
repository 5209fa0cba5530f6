import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerSpec } from '../config/mcp-servers.js';

/**
 * An MCP server the program that drives outrider runs in its own process (the Agent SDK's
 * in-process servers, `initialize`'s `sdkMcpServers`): outrider reaches it over a transport
 * the front end makes, one per start.
 */
export interface HostedMcpServer {
  name: string;
  connect: () => Transport;
}

/** A hosted server as a session starts it (`/mcp` shows `source`). */
export type HostedServerSpec = HostedMcpServer & { source: string };

/** A server a session starts: configured (an entry to run or reach), or hosted by the program driving the session. */
export type SessionServerSpec = McpServerSpec | HostedServerSpec;

export function isHosted(spec: SessionServerSpec): spec is HostedServerSpec {
  return 'connect' in spec;
}
