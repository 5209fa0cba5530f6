import type { McpServerSpec } from '../config/mcp-servers.js';
import type { Settings } from '../config/settings.js';
import type { Timers } from '../platform/timers.js';
import { McpManager } from './manager.js';
import type { McpServerStatus } from './types.js';

/** What starting servers outside a session needs. */
export interface CheckOptions {
  /** The environment `${VAR}` is expanded from (and stdio servers get their share of). */
  env: NodeJS.ProcessEnv;
  /** Where stdio servers run. */
  cwd: string;
  /** The effective settings: `mcp.startupTimeoutMs` bounds each start. */
  settings: Settings;
  /** Where sign-ins are kept (`outriderPaths(env).mcpAuthDir`). */
  authDir: string;
  /** Gives up: every server is closed, and those still starting are `failed`. */
  signal?: AbortSignal;
  timers?: Timers;
}

/**
 * Starts every server once, as a session would (all at once, each bounded by
 * `mcp.startupTimeoutMs`, remote ones with their stored sign-in), and closes them all again.
 * Resolves with each server's state then: ready with its tools, failed, or needs-auth.
 */
export async function checkMcpServers(specs: readonly McpServerSpec[], options: CheckOptions): Promise<McpServerStatus[]> {
  const manager = new McpManager({
    servers: [...specs],
    env: options.env,
    cwd: options.cwd,
    startupTimeoutMs: options.settings.mcp?.startupTimeoutMs,
    authDir: options.authDir,
    publish: () => {},
    ...(options.timers ? { timers: options.timers } : {}),
  });
  const cancelled = () => void manager.close();
  if (options.signal?.aborted) cancelled();
  else options.signal?.addEventListener('abort', cancelled, { once: true });
  try {
    await manager.start();
    return manager
      .statuses()
      .map((status) => (status.state === 'starting' ? { ...status, state: 'failed' as const, error: 'cancelled' } : status));
  } finally {
    options.signal?.removeEventListener('abort', cancelled);
    await manager.close();
  }
}
