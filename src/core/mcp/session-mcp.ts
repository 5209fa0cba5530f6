import { outriderPaths } from '../config/paths.js';
import type { Settings } from '../config/settings.js';
import type { Timers } from '../platform/timers.js';
import type { AnyTool } from '../tools/define.js';
import { ToolRegistry } from '../tools/registry.js';
import type { SessionServerSpec } from './hosted-server.js';
import { McpManager, type SignInRequest } from './manager.js';
import { expandMcpPrompt, resourceTools } from './mcp-resources.js';
import { MCP_TOOL_PREFIX } from './names.js';
import { serverWarning } from './warnings.js';
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
  /** `/mcp login <name>`: signs in to a remote server in the browser, then starts it again (McpManager.signIn). */
  signIn(name: string, request: SignInRequest): Promise<void>;
  /** `/mcp logout <name>`: forgets its stored sign-in, and starts it again without. */
  signOut(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the servers (at once, in the background) and keeps `childPool` — the registry
 * sub-agents' tools are filtered from — holding their current tools. States go to the event
 * stream as state events, so a front end that subscribes later still hears of each.
 */
export function startSessionMcp(options: {
  specs: SessionServerSpec[];
  settings: Settings;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where each server's state goes: the session's event stream, as a state event keyed `state` (a late subscriber still hears it). */
  publishState: (event: McpEvent, state: string) => void;
  childPool: ToolRegistry;
  timers?: Timers;
  /** How long a sign-in waits for the browser (5 minutes unless told). */
  signInTimeoutMs?: number;
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
    // Sign-ins are the user's, as the settings are: under outrider's home, whichever project this is.
    authDir: outriderPaths(options.env).mcpAuthDir,
    signInTimeoutMs: options.signInTimeoutMs,
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
    signIn: (name, request) => manager.signIn(name, request),
    signOut: (name) => manager.signOut(name),
    close: () => manager.close(),
  };
}

/** One warning line per server that failed or waits for a sign-in, for a front end that waited for them (headless). */
export function failureWarnings(statuses: readonly McpServerStatus[]): string[] {
  return statuses.flatMap((s) => serverWarning(s) ?? []);
}

const NO_MCP_SERVERS =
  'this session has no MCP servers: add them to .mcp.json, to mcpServers in your settings, or with --mcp-config';

/** What a session shows of its MCP servers (`OpenedSession.mcp`), with or without any. */
export function mcpFace(mcp: SessionMcp | undefined): Pick<SessionMcp, 'statuses' | 'ready' | 'signIn' | 'signOut'> {
  return {
    statuses: () => mcp?.statuses() ?? [],
    ready: () => mcp?.ready() ?? Promise.resolve(),
    signIn: (name, request) => (mcp ? mcp.signIn(name, request) : Promise.reject(new Error(NO_MCP_SERVERS))),
    signOut: (name) => (mcp ? mcp.signOut(name) : Promise.reject(new Error(NO_MCP_SERVERS))),
  };
}
