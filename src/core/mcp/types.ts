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
  /** The prompts it offers while it runs, as `/` commands (prompt-commands.ts); absent or empty: none. */
  prompts?: McpPromptCommand[];
  /** The last thing that went wrong: why it failed (or needs a sign-in), or a transport error of a running server. */
  error?: string;
}

/**
 * A server's prompt as the command that runs it. Its text is the server's, made safe to show:
 * one line, no escape sequences or control characters, bounded.
 */
export interface McpPromptCommand {
  /** `/mcp__<server>__<prompt>`: letters, digits, `_` and `-` only. */
  command: string;
  description?: string;
  /** The arguments the words typed after it fill, in order (the last takes the rest). */
  arguments: Array<{ name: string; required: boolean }>;
}

/** A server's state changed; the event carries its whole status. */
export type McpEvent = { type: 'mcp_server'; server: McpServerStatus };
