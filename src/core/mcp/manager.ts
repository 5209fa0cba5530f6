import { expandServer } from '../config/mcp-servers.js';
import { type Timers, realTimers } from '../platform/timers.js';
import type { AnyTool } from '../tools/define.js';
import { type McpConnection, type McpToolInfo, connectServer } from './connection.js';
import { type SessionServerSpec, isHosted } from './hosted-server.js';
import { mcpTool } from './mcp-tool.js';
import { mcpToolName } from './names.js';
import { promptCommands } from './prompt-commands.js';
import { SignInNeeded, storedAuthProvider } from './oauth-provider.js';
import { signInToServer } from './oauth-sign-in.js';
import { OAuthStore } from './oauth-store.js';
import type { McpEvent, McpServerStatus } from './types.js';

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 300_000;

export interface McpManagerOptions {
  servers: SessionServerSpec[];
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
  /** Where remote servers' OAuth sign-ins are kept (`~/.outrider/mcp-auth`); without it a server that asks for one fails. */
  authDir?: string;
  /** How long a sign-in waits for the browser (5 minutes unless told). */
  signInTimeoutMs?: number;
}

/** What a sign-in needs from its caller. */
export interface SignInRequest {
  /** The page to open to sign in: show it, and open a browser on it where one can be. */
  onAuthorizationUrl: (url: string) => void;
  /** Gives up waiting for the browser. */
  signal?: AbortSignal;
}

interface ServerRecord {
  spec: SessionServerSpec;
  status: McpServerStatus;
  connection?: McpConnection;
  tools: AnyTool[];
  /** Aborts the start (its timeout, or close()). */
  startup: AbortController;
  /** Counts the starts: what an earlier connection reports after a restart changes nothing. */
  generation: number;
  /** The sign-in under way. */
  signIn?: AbortController;
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
  private readonly store: OAuthStore | undefined;
  private closed = false;
  private started: Promise<void> | undefined;

  constructor(private readonly options: McpManagerOptions) {
    this.timers = options.timers ?? realTimers;
    this.store = options.authDir ? new OAuthStore(options.authDir) : undefined;
    this.records = options.servers.map((spec) => ({
      spec,
      status: {
        name: spec.name,
        source: spec.source,
        transport: isHosted(spec) ? 'sdk' : spec.entry.type,
        state: 'starting',
        tools: [],
        prompts: [],
      },
      tools: [],
      startup: new AbortController(),
      generation: 0,
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

  /**
   * Signs in to remote server `name` (OAuth 2.1: oauth-sign-in.ts), then starts it again with
   * the new tokens. Resolves when it is up; throws an error saying what went wrong and what to do.
   * A second sign-in to the same server ends the first.
   */
  async signIn(name: string, request: SignInRequest): Promise<void> {
    const { record, url, store } = this.remote(name);
    record.signIn?.abort(new Error('a new sign-in to it started'));
    const controller = new AbortController();
    record.signIn = controller;
    const onAbort = () => controller.abort(new Error('the sign-in was cancelled'));
    if (request.signal?.aborted) onAbort();
    else request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await signInToServer({
        name,
        url,
        store,
        timers: this.timers,
        timeoutMs: this.options.signInTimeoutMs,
        signal: controller.signal,
        onAuthorizationUrl: request.onAuthorizationUrl,
      });
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`sign-in to ${JSON.stringify(name)} failed: ${why}; /mcp login ${name} starts another`, { cause: error });
    } finally {
      if (record.signIn === controller) record.signIn = undefined;
      request.signal?.removeEventListener('abort', onAbort);
    }
    await this.restart(record);
    if (record.status.state !== 'ready') {
      throw new Error(
        `signed in to ${JSON.stringify(name)}, but it did not start: ${record.status.error ?? record.status.state}`,
      );
    }
  }

  /** Forgets remote server `name`'s sign-in (its stored tokens and registration), and starts it again without. */
  async signOut(name: string): Promise<void> {
    const { record, url, store } = this.remote(name);
    record.signIn?.abort(new Error('you signed out'));
    await store.remove(url);
    await this.restart(record);
  }

  /** Closes every server (stdio processes are ended: stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.closed = true;
    for (const record of this.records) {
      record.startup.abort();
      record.signIn?.abort(new Error('the session closed'));
    }
    await Promise.all(this.records.map((record) => record.connection?.close() ?? Promise.resolve()));
    await this.started;
  }

  /** A remote server by name, with its URL and the sign-in store; throws what to do instead. */
  private remote(name: string): { record: ServerRecord; url: URL; store: OAuthStore } {
    const record = this.records.find((r) => r.spec.name === name);
    if (!record) {
      const names = this.records.map((r) => r.spec.name).join(', ');
      throw new Error(`no MCP server is named ${JSON.stringify(name)}${names ? ` (there are: ${names})` : ''}; /mcp lists them`);
    }
    if (isHosted(record.spec)) {
      throw new Error(
        `MCP server ${JSON.stringify(name)} runs in the program that drives outrider (the Agent SDK): it has no sign-in`,
      );
    }
    const expanded = expandServer(record.spec.entry, this.options.env);
    if (!expanded.ok) throw new Error(`MCP server ${JSON.stringify(name)}: ${expanded.error}`);
    if (expanded.server.type === 'stdio') {
      throw new Error(
        `MCP server ${JSON.stringify(name)} is a local program (stdio): it has no sign-in; what it needs goes in its "env"`,
      );
    }
    if (!this.store) throw new Error('sign-ins are not kept in this session');
    return { record, url: expanded.server.url, store: this.store };
  }

  /** Closes a server's connection and starts it again (after a sign-in or a sign-out). */
  private async restart(record: ServerRecord): Promise<void> {
    if (this.closed) return;
    record.startup.abort();
    const old = record.connection;
    record.connection = undefined;
    record.generation += 1;
    await old?.close();
    record.startup = new AbortController();
    const hadTools = record.tools.length > 0;
    record.tools = [];
    const { error: _old, ...status } = record.status;
    record.status = { ...status, state: 'starting', tools: [], prompts: [] };
    this.publish(record);
    if (hadTools) this.options.onToolsChanged?.();
    await this.startOne(record);
  }

  private async startOne(record: ServerRecord): Promise<void> {
    record.generation += 1;
    const generation = record.generation;
    // What an earlier start (or its connection) reports once the server was started again is dropped.
    const current = () => record.generation === generation;
    const spec = record.spec;
    const expanded = isHosted(spec)
      ? { ok: true as const, server: { type: 'sdk' as const, connect: spec.connect } }
      : expandServer(spec.entry, this.options.env);
    if (!expanded.ok) return this.fail(record, expanded.error);
    const server = expanded.server;
    // A remote server gets the stored sign-in, unless its entry sets its own Authorization header.
    const authProvider =
      server.type !== 'stdio' && server.type !== 'sdk' && this.store && !hasAuthorization(server.headers)
        ? storedAuthProvider(this.store, server.url, { kind: 'connect' })
        : undefined;
    const timeoutMs = this.options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    const startup = record.startup;
    let timedOut = false;
    const handle = this.timers.setTimeout(() => {
      timedOut = true;
      startup.abort();
    }, timeoutMs);
    try {
      const { connection, tools, prompts } = await connectServer(server, {
        cwd: this.options.cwd,
        signal: startup.signal,
        onClosed: (reason) => {
          if (!current()) return;
          record.connection = undefined;
          this.fail(record, reason);
        },
        onError: (message) => current() && this.update(record, { error: message }),
        onToolsChanged: (infos) => current() && this.setTools(record, infos),
        // A list that changes while the server starts is read again below, with the rest.
        onPromptsChanged: (infos) =>
          current() && record.status.state === 'ready' && this.update(record, { prompts: promptCommands(spec.name, infos) }),
        ...(authProvider ? { authProvider, onSignInNeeded: () => current() && this.needsSignIn(record) } : {}),
      });
      if (this.closed || !current()) {
        await connection.close();
        return;
      }
      record.connection = connection;
      // Set with the tools, so the status that says it is ready has both.
      record.status = { ...record.status, prompts: promptCommands(spec.name, prompts) };
      this.setTools(record, tools);
    } catch (error) {
      if (this.closed || !current()) return;
      if (error instanceof SignInNeeded && !timedOut) return this.needsSignIn(record);
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
    this.stop(record, { state: 'failed', error });
  }

  /** The server wants a sign-in: not a failure, a step the user takes (`/mcp login <name>`). */
  private needsSignIn(record: ServerRecord): void {
    this.stop(record, { state: 'needs-auth', error: 'the server asks for a sign-in (OAuth)' });
  }

  private stop(record: ServerRecord, change: Pick<McpServerStatus, 'state' | 'error'>): void {
    if (this.closed) return;
    const hadTools = record.tools.length > 0;
    record.tools = [];
    this.update(record, { ...change, tools: [], prompts: [] });
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

function hasAuthorization(headers: Record<string, string> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
}
