import type { McpServerEntries } from '../config/mcp-files.js';
import type { McpServerSpec } from '../config/mcp-servers.js';
import type { Settings } from '../config/settings.js';
import type { Timers } from '../platform/timers.js';
import type { AnyTool } from '../tools/define.js';
import { ToolRegistry } from '../tools/registry.js';
import { McpManager } from './manager.js';
import { expandMcpPrompt, resourceTools } from './mcp-resources.js';
import { MCP_TOOL_PREFIX } from './names.js';
import { failureWarning } from './warnings.js';
import type { McpEvent, McpServerStatus } from './types.js';

/** The session's MCP servers as the rest of the session sees them. */
export interface SessionMcp {
  statuses(): McpServerStatus[];
  /** Resolves when every server is up or has failed. */
  ready(): Promise<void>;
  /**
   * The session hook: a new registry (`core` tools, then every running server's) when the
   * servers' tools changed since the last call, else undefined.
   */
  toolsForTurn(core: readonly AnyTool[]): ToolRegistry | undefined;
  /** `/mcp__<server>__<prompt> args`: the server's prompt as the text to send; undefined when it names none. */
  expandPrompt(text: string, signal: AbortSignal): Promise<string | undefined>;
  close(): Promise<void>;
}

/**
 * The servers of every source, later winning for a name: your settings (and a trusted
 * project's), the project's `.mcp.json` (when trusted), `--mcp-config`. Disabled entries are left out.
 */
export function mcpServerSpecs(sources: Array<{ source: string; servers: McpServerEntries | undefined }>): McpServerSpec[] {
  const byName = new Map<string, McpServerSpec>();
  for (const { source, servers } of sources) {
    for (const [name, entry] of Object.entries(servers ?? {})) {
      byName.delete(name);
      if (entry.disabled !== true) byName.set(name, { name, source, entry });
    }
  }
  return [...byName.values()];
}

/**
 * Starts the servers (at once, in the background) and keeps `childPool` — the registry
 * sub-agents' tools are filtered from — holding their current tools. States go to the event
 * stream as state events, so a front end that subscribes later still hears of each.
 */
export function startSessionMcp(options: {
  specs: McpServerSpec[];
  settings: Settings;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where each server's state goes: the session's event stream, as a state event keyed `state` (a late subscriber still hears it). */
  publishState: (event: McpEvent, state: string) => void;
  childPool: ToolRegistry;
  timers?: Timers;
}): SessionMcp {
  let version = 0;
  let applied = 0;
  const manager = new McpManager({
    servers: options.specs,
    env: options.env,
    cwd: options.cwd,
    startupTimeoutMs: options.settings.mcp?.startupTimeoutMs,
    toolTimeoutMs: options.settings.mcp?.toolTimeoutMs,
    trustReadOnlyHints: options.settings.permissions?.mcpReadOnlyHints,
    timers: options.timers,
    publish: (event) => options.publishState(event, `mcp_server:${event.server.name}`),
    onToolsChanged: () => {
      version += 1;
      // A sub-agent's tools are filtered when it starts: it gets the servers' tools as they are then.
      for (const name of options.childPool.names()) if (name.startsWith(MCP_TOOL_PREFIX)) options.childPool.remove(name);
      for (const tool of manager.tools()) options.childPool.add(tool);
    },
  });
  const started = manager.start();
  return {
    statuses: () => manager.statuses(),
    ready: () => started,
    toolsForTurn(core) {
      if (version === applied) return undefined;
      applied = version;
      // The resource tools are the parent's, while a running server offers resources.
      const resources = manager.live().some((server) => server.connection.offers.resources)
        ? resourceTools(() => manager.live())
        : [];
      return new ToolRegistry([...core, ...manager.tools(), ...resources]);
    },
    expandPrompt: (text, signal) => expandMcpPrompt(text, manager.live(), signal),
    close: () => manager.close(),
  };
}

/** One warning line per server that failed, for a front end that waited for them (headless). */
export function failureWarnings(statuses: readonly McpServerStatus[]): string[] {
  return statuses.filter((s) => s.state === 'failed').map(failureWarning);
}
