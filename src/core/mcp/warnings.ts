import { safeText } from '../platform/safe-text.js';
import type { McpServerStatus } from './types.js';

/** `MCP server "github" failed: cannot run "gh-mcp": no such program …; going on without its tools` (escaped: a server's words). */
export function failureWarning(server: McpServerStatus): string {
  return `MCP server ${JSON.stringify(safeText(server.name))} failed: ${safeText(server.error ?? 'unknown error')}; going on without its tools`;
}
