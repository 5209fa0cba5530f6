import { failureWarning, type McpServerStatus, safeText } from '../../core/index.js';

/** The session's MCP servers as last reported, in the order they were configured. */
export type McpState = readonly McpServerStatus[];

/**
 * A server's new status replaces its old one; the warning line is due when it has just failed,
 * or has just asked for a sign-in.
 */
export function applyMcpStatus(state: McpState, server: McpServerStatus): { state: McpState; failed?: string } {
  const index = state.findIndex((s) => s.name === server.name);
  const before = index === -1 ? undefined : state[index];
  const next = index === -1 ? [...state, server] : state.map((s, i) => (i === index ? server : s));
  const changed = before?.state !== server.state;
  const failed =
    changed && server.state === 'failed'
      ? failureWarning(server)
      : changed && server.state === 'needs-auth'
        ? `MCP server ${JSON.stringify(safeText(server.name))} needs you to sign in: ${signInHint(server.name)}`
        : undefined;
  return failed ? { state: next, failed } : { state: next };
}

/** How to sign in to a server, as the TUI takes it. */
function signInHint(name: string): string {
  return `/mcp login ${safeText(name)} (it opens the page in your browser)`;
}

/** The footer's segment: `mcp 2/3` (servers up of those configured), empty without servers. */
export function mcpSegment(state: McpState): string {
  if (state.length === 0) return '';
  return `mcp ${state.filter((s) => s.state === 'ready').length}/${state.length}`;
}

/** What /mcp shows: one line per server (state, source, tool count), its tools, its last error. */
export function mcpLines(state: McpState): string[] {
  if (state.length === 0) return ['no MCP servers: add them to .mcp.json, to mcpServers in your settings, or with --mcp-config'];
  return state.flatMap((server) => {
    const tools = server.tools.length;
    const head = `${safeText(server.name)}  ${server.state}  ${server.transport}, from ${server.source}${server.state === 'ready' ? `, ${tools} tool${tools === 1 ? '' : 's'}` : ''}`;
    return [
      head,
      ...(tools ? [`  ${server.tools.map(safeText).join(', ')}`] : []),
      ...(server.state === 'needs-auth'
        ? [`  sign in: ${signInHint(server.name)}`]
        : server.error
          ? [`  last error: ${safeText(server.error)}`]
          : []),
    ];
  });
}
