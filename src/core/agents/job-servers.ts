import type { McpServerSpec } from '../config/mcp-servers.js';
import { McpManager } from '../mcp/manager.js';
import { safeText } from '../platform/safe-text.js';
import type { Timers } from '../platform/timers.js';
import { untilAborted } from '../platform/until-aborted.js';
import type { AnyTool } from '../tools/define.js';
import type { AgentDefinition } from './agent-definition.js';

// An agent file's `mcpServers`: a name is one of the session's servers, whose tools the job is
// given; an inline entry is a server started for the job alone, its tools in that job's list
// only, and stopped when the job's run ends. Inline entries run a program or reach a server,
// so the caller decides first whether they may (repository-commands.ts).

/** What the session's MCP settings say for servers a job starts. */
export interface JobServerSettings {
  /** The session's environment: an entry's `${VAR}` are expanded from it (as for .mcp.json). */
  env: NodeJS.ProcessEnv;
  /** Where a stdio server runs: the project's folder. */
  cwd: string;
  startupTimeoutMs?: number;
  toolTimeoutMs?: number;
  trustReadOnlyHints?: boolean;
  /** Remote servers' stored sign-ins (`~/.outrider/mcp-auth`). */
  authDir?: string;
  timers?: Timers;
}

/** The servers of one job's run: their tools, what the job and the user are told, and the stop. */
export interface JobServers {
  tools: AnyTool[];
  /** The session's servers named by the file: their tools' names. */
  named: string[];
  notes: string[];
  close(): Promise<void>;
}

/**
 * Starts the file's inline servers (when `refused` is undefined) and waits until each is up or
 * failed, the job's signal ending the wait. Names are looked up in the session's servers.
 */
export async function startJobServers(
  definition: Pick<AgentDefinition, 'name' | 'mcpServers'>,
  options: {
    settings: JobServerSettings;
    /** The tools of one of the session's servers by its name; undefined when there is no such server. */
    sessionServerTools: (name: string) => readonly string[] | undefined;
    /** Resolves once the session's servers are up or failed: a named one is looked up then. */
    sessionServersReady?: () => Promise<void>;
    /** Why the inline servers may not start; undefined when they may. */
    refused?: string;
    signal: AbortSignal;
  },
): Promise<JobServers> {
  const notes: string[] = [];
  const named: string[] = [];
  const specs: McpServerSpec[] = [];
  const missing: string[] = [];
  const from = `${definition.name}'s definition`;
  if (options.sessionServersReady && definition.mcpServers?.some((server) => !('entry' in server))) {
    await untilAborted(options.sessionServersReady(), options.signal).catch(() => undefined);
  }
  for (const server of definition.mcpServers ?? []) {
    if ('entry' in server) {
      if (server.entry.disabled !== true)
        specs.push({ name: server.name, source: `agent ${definition.name}`, entry: server.entry });
      continue;
    }
    const tools = options.sessionServerTools(server.name);
    if (tools === undefined) missing.push(server.name);
    else named.push(...tools);
  }
  const list = (names: string[]) => names.map((name) => JSON.stringify(safeText(name))).join(', ');
  if (missing.length) notes.push(`MCP ${plural(missing, 'server')} ${list(missing)} named in ${from}: not one of this session's`);
  if (specs.length === 0) return { tools: [], named, notes, close: async () => {} };
  if (options.refused !== undefined) {
    notes.push(`MCP ${plural(specs, 'server')} ${list(specs.map((s) => s.name))} of ${from} not started: ${options.refused}`);
    return { tools: [], named, notes, close: async () => {} };
  }
  const { settings } = options;
  const manager = new McpManager({
    servers: specs,
    env: settings.env,
    cwd: settings.cwd,
    startupTimeoutMs: settings.startupTimeoutMs,
    toolTimeoutMs: settings.toolTimeoutMs,
    trustReadOnlyHints: settings.trustReadOnlyHints,
    authDir: settings.authDir,
    timers: settings.timers,
    // A job's servers are not the session's: their states are told to the job, below, not to /mcp.
    publish: () => {},
  });
  const stop = () => void manager.close();
  options.signal.addEventListener('abort', stop, { once: true });
  try {
    await manager.start();
  } finally {
    options.signal.removeEventListener('abort', stop);
  }
  for (const status of manager.statuses()) {
    if (status.state !== 'ready') {
      notes.push(`MCP server ${list([status.name])} of ${from} did not start: ${safeText(status.error ?? status.state)}`);
    }
  }
  return { tools: manager.tools(), named, notes, close: () => manager.close() };
}

function plural(items: readonly unknown[], noun: string): string {
  return items.length === 1 ? noun : `${noun}s`;
}
