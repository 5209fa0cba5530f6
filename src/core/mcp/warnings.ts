import { safeText } from '../platform/safe-text.js';
import { shellWord } from '../platform/shell-word.js';
import type { McpServerStatus } from './types.js';

/** `MCP server "github" failed: cannot run "gh-mcp": no such program …; going on without its tools` (escaped: a server's words). */
export function failureWarning(server: McpServerStatus): string {
  return `MCP server ${JSON.stringify(safeText(server.name))} failed: ${safeText(server.error ?? 'unknown error')}; going on without its tools`;
}

/** `outrider mcp login <name>`, the command line that signs in to a server (the name quoted for a shell where it must be). */
export function mcpLoginCommand(name: string): string {
  return `outrider mcp login ${shellWord(name)}`;
}

/** `MCP server "linear" needs you to sign in: …` (headless, where nobody can: the command to run is in the line). */
export function signInWarning(server: McpServerStatus): string {
  return `MCP server ${JSON.stringify(safeText(server.name))} needs you to sign in (OAuth): run ${mcpLoginCommand(server.name)} (or /mcp login ${safeText(server.name)} in the TUI); going on without its tools`;
}

/** The warning line of a server that is not up and will not be by itself: failed, or waiting for a sign-in. */
export function serverWarning(server: McpServerStatus): string | undefined {
  if (server.state === 'failed') return failureWarning(server);
  if (server.state === 'needs-auth') return signInWarning(server);
  return undefined;
}
