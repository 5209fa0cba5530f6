/**
 * Where a server stands: starting, up with its tools, failed (at start, or since: it exited),
 * or waiting for the user to sign in (a remote server that asks for OAuth: `/mcp login <name>`).
 */
export type McpServerState = 'starting' | 'ready' | 'failed' | 'needs-auth';

/** One MCP server as the front ends show it (the footer's `mcp 2/3`, /mcp). Facts only: no display strings. */
export interface McpServerStatus {
  name: string;
  /** Where it was configured: `settings`, `.mcp.json` or `--mcp-config` (`sdk`: hosted by the program driving outrider). */
  source: string;
  transport: 'stdio' | 'http' | 'sse' | 'sdk';
  state: McpServerState;
  /** Its tools, by the names the model calls them (`mcp__<server>__<tool>`). */
  tools: string[];
  /** The last thing that went wrong: why it failed (or needs a sign-in), or a transport error of a running server. */
  error?: string;
}

/** A server's state changed; the event carries its whole status. */
export type McpEvent = { type: 'mcp_server'; server: McpServerStatus };
