import { createHash } from 'node:crypto';

/** Every MCP tool's name starts so, as in Claude Code: `mcp__<server>__<tool>`. */
export const MCP_TOOL_PREFIX = 'mcp__';

/** What both providers accept as a tool name: letters, digits, `_` and `-`, at most 64 characters. */
const MAX_NAME = 64;

/** A server or tool name with every character a provider refuses replaced by `_`. */
export function sanitizeNamePart(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return clean === '' ? '_' : clean;
}

/**
 * The name the model calls a server's tool by. Too long a name is cut and given a short hash
 * of the whole, and a name already `taken` (two tools that sanitize alike) gets one too, so
 * every tool keeps a name of its own.
 */
export function mcpToolName(server: string, tool: string, taken: (name: string) => boolean = () => false): string {
  const full = `${MCP_TOOL_PREFIX}${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (full.length <= MAX_NAME && !taken(full)) return full;
  for (let attempt = 0; ; attempt += 1) {
    const hash = createHash('sha256').update(`${server}\u0000${tool}\u0000${attempt}`).digest('hex').slice(0, 8);
    const name = `${full.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
    if (!taken(name)) return name;
  }
}
