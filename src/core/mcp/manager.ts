import { type McpServerSpec, expandServer } from '../config/mcp-servers.js';
import { type Timers, realTimers } from '../platform/timers.js';
import type { AnyTool } from '../tools/define.js';
import { type McpConnection, type McpToolInfo, connectServer } from './connection.js';
import { mcpTool } from './mcp-tool.js';
import { mcpToolName } from './names.js';
import type { McpEvent, McpServerStatus } from './types.js';

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 300_000;

export interface McpManagerOptions {
  servers: McpServerSpec[];
  /** The session's environment: `${VAR}` in an entry is expanded from it. */
  env: NodeJS.ProcessEnv;
  /** Where stdio servers run. */
  cwd: string;
  startupTimeoutMs?: number;
  toolTimeoutMs?: number;
  /** Setting `permissions.mcpReadOnlyHints`. */
  trustReadOnlyHints?: boolean;
  /** Every state change, as it happens. */
  publish: (event: McpEvent) => void;
  /** The set of tools changed: a server came up, went away, or changed its list. */
  onToolsChanged?: () => void;
  timers?: Timers;
}

interface ServerRecord {
  spec: McpServerSpec;
  status: McpServerStatus;
  connection?: McpConnection;
  tools: AnyTool[];
  /** Aborts the start (its timeout, or close()). */
  startup: AbortController;
}

/**
 * The session's MCP servers: started together, each on its own (one that fails is one
 * status, and the others go on), their tools offered while they run, all closed at the end.
 * The session decides when new tools reach the model (between turns); this only says what
 * the tools are now.
 */
export class McpManager {
  private readonly records: ServerRecord[];
  private readonly timers: Timers;
  private closed = false;
  private started: Promise<void> | undefined;

  constructor(private readonly options: McpManagerOptions) {
    this.timers = options.timers ?? realTimers;
    this.records = options.servers.map((spec) => ({
      spec,
      status: { name: spec.name, source: spec.source, transport: spec.entry.type, state: 'starting', tools: [] },
      tools: [],
      startup: new AbortController(),
    }));
  }

  /** Starts every server at once; resolves when each is up or has failed (never rejects). */
  start(): Promise<void> {
    this.started ??= (() => {
      for (const record of this.records) this.publish(record);
      return Promise.all(this.records.map((record) => this.startOne(record))).then(() => undefined);
    })();
    return this.started;
  }

  statuses(): McpServerStatus[] {
    return this.records.map((record) => record.status);
  }

  /** The servers running now, with their connections (resources, prompts). */
  live(): Array<{ name: string; connection: McpConnection }> {
    return this.records.flatMap((record) =>
      record.connection && record.status.state === 'ready' ? [{ name: record.spec.name, connection: record.connection }] : [],
    );
  }

  /** The tools of every running server, server by server in the order they were configured. */
  tools(): AnyTool[] {
    return this.records.flatMap((record) => record.tools);
  }

  /** Closes every server (stdio processes are ended: stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.closed = true;
    for (const record of this.records) record.startup.abort();
    await Promise.all(this.records.map((record) => record.connection?.close() ?? Promise.resolve()));
    await this.started;
  }

  private async startOne(record: ServerRecord): Promise<void> {
    const expanded = expandServer(record.spec.entry, this.options.env);
    if (!expanded.ok) return this.fail(record, expanded.error);
    const timeoutMs = this.options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    let timedOut = false;
    const handle = this.timers.setTimeout(() => {
      timedOut = true;
      record.startup.abort();
    }, timeoutMs);
    try {
      const { connection, tools } = await connectServer(expanded.server, {
        cwd: this.options.cwd,
        signal: record.startup.signal,
        onClosed: (reason) => {
          record.connection = undefined;
          this.fail(record, reason);
        },
        onError: (message) => this.update(record, { error: message }),
        onToolsChanged: (infos) => this.setTools(record, infos),
      });
      if (this.closed) {
        await connection.close();
        return;
      }
      record.connection = connection;
      this.setTools(record, tools);
    } catch (error) {
      if (this.closed) return;
      const message = timedOut
        ? `did not start within ${Math.round(timeoutMs / 100) / 10}s (setting mcp.startupTimeoutMs)`
        : error instanceof Error
          ? error.message
          : String(error);
      this.fail(record, message);
    } finally {
      this.timers.clearTimeout(handle);
    }
  }

  private setTools(record: ServerRecord, infos: McpToolInfo[]): void {
    if (this.closed) return;
    const others = new Set(this.records.filter((r) => r !== record).flatMap((r) => r.status.tools));
    const names = new Set<string>();
    record.tools = infos.map((info) => {
      const name = mcpToolName(record.spec.name, info.name, (candidate) => others.has(candidate) || names.has(candidate));
      names.add(name);
      return mcpTool({
        name,
        server: record.spec.name,
        info,
        connection: () =>
          record.connection ? { connection: record.connection } : { error: record.status.error ?? 'it is not running' },
        timeoutMs: this.options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        trustReadOnlyHint: this.options.trustReadOnlyHints === true,
        timers: this.timers,
      });
    });
    this.update(record, { state: 'ready', tools: [...names] });
    this.options.onToolsChanged?.();
  }

  private fail(record: ServerRecord, error: string): void {
    if (this.closed) return;
    const hadTools = record.tools.length > 0;
    record.tools = [];
    this.update(record, { state: 'failed', tools: [], error });
    if (hadTools) this.options.onToolsChanged?.();
  }

  private update(record: ServerRecord, change: Partial<McpServerStatus>): void {
    if (this.closed) return;
    record.status = { ...record.status, ...change };
    this.publish(record);
  }

  private publish(record: ServerRecord): void {
    this.options.publish({ type: 'mcp_server', server: record.status });
  }
}
