import { type AnyTool, type ToolOutput, defineJsonSchemaTool } from '../tools/define.js';
import type { Timers } from '../platform/timers.js';
import type { McpConnection, McpToolInfo } from './connection.js';
import { resultText } from './result-text.js';

/** A server's tool descriptions can be long; past this they cost every request more than they say. */
const MAX_DESCRIPTION = 4000;

export interface McpToolOptions {
  /** The name the model calls it by (`mcp__<server>__<tool>`). */
  name: string;
  server: string;
  info: McpToolInfo;
  /** The server's connection now, or why there is none (it failed, or exited). */
  connection: () => { connection: McpConnection } | { error: string };
  timeoutMs: number;
  /** Setting `permissions.mcpReadOnlyHints`: believe the tool's own `readOnlyHint`. */
  trustReadOnlyHint: boolean;
  timers: Timers;
}

/**
 * One MCP tool as a tool of the registry: the server's JSON Schema sent as is, the call sent
 * to the server with the turn's abort signal and a timeout of its own. It is `mutating` for
 * the policy (it asks in default mode) unless the user chose to believe its read-only hint.
 */
export function mcpTool(options: McpToolOptions): AnyTool {
  const { name, server, info, timeoutMs, timers } = options;
  const readOnlyHint = info.annotations?.readOnlyHint === true;
  const described =
    info.description?.trim() || info.title || info.annotations?.title || `The ${info.name} tool of the ${server} MCP server.`;
  return defineJsonSchemaTool({
    name,
    description: described.length > MAX_DESCRIPTION ? `${described.slice(0, MAX_DESCRIPTION - 1)}…` : described,
    inputSchema: info.inputSchema,
    kind: readOnlyHint && options.trustReadOnlyHint ? 'read-only' : 'mutating',
    // A tool that says it changes nothing can run beside the other calls of its response.
    parallel: readOnlyHint,
    async execute(args, ctx): Promise<ToolOutput> {
      const current = options.connection();
      if ('error' in current) return { content: `MCP server "${server}" is not running: ${current.error}`, isError: true };
      const timeout = new AbortController();
      const handle = timers.setTimeout(() => timeout.abort(), timeoutMs);
      try {
        const result = await current.connection.callTool(info.name, args, {
          signal: AbortSignal.any([ctx.signal, timeout.signal]),
          ...(ctx.onUpdate ? { onProgress: ctx.onUpdate } : {}),
        });
        const content = resultText(result);
        return { content: content === '' ? '(no output)' : content, ...(result.isError ? { isError: true } : {}) };
      } catch (error) {
        if (timeout.signal.aborted && !ctx.signal.aborted) {
          return {
            content: `${name} timed out after ${describeMs(timeoutMs)} and was cancelled (setting mcp.toolTimeoutMs)`,
            isError: true,
          };
        }
        throw error;
      } finally {
        timers.clearTimeout(handle);
      }
    },
  });
}

function describeMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  return Number.isInteger(seconds) ? `${seconds}s` : `${seconds.toFixed(1)}s`;
}
