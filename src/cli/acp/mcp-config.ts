/**
 * The MCP servers an editor passes in session/new and session/load, as one `--mcp-config`
 * value (`{ "mcpServers": … }` in Claude Code's format): the editor speaks for the user, so they
 * start as the user's own servers would (docs/acp.md).
 */
import type { McpServer } from '@agentclientprotocol/sdk/unstable';

/** JSON text for SessionSetup.mcpConfig, or undefined when the editor passed none. */
export function mcpConfigText(servers: readonly McpServer[] | undefined): string | undefined {
  if (!servers?.length) return undefined;
  const entries: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const server of servers) {
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      entries[server.name] = { type: server.type, url: server.url, headers: pairs(server.headers) };
    } else if ('type' in server && server.type === 'acp') {
      throw new Error(`MCP server "${server.name}": servers over ACP are not supported; give it as stdio, http or sse`);
    } else if ('command' in server) {
      entries[server.name] = { type: 'stdio', command: server.command, args: server.args, env: pairs(server.env) };
    }
  }
  return JSON.stringify({ mcpServers: entries });
}

function pairs(list: readonly { name: string; value: string }[] | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const { name, value } of list ?? []) out[name] = value;
  return out;
}
