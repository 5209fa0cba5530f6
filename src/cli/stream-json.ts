/**
 * `--output-format stream-json`: the session's events as Claude Code's messages (the shapes
 * of `@anthropic-ai/claude-agent-sdk`'s `SDKMessage`), one JSON object a line: `system/init`,
 * `assistant` (an Anthropic Messages API message), `user` (tool results, injected notices),
 * `result`; sub-agents' messages carry the `parent_tool_use_id` of the agent_start call that
 * started them, and job events are further `system` subtypes. See docs/stream-json.md.
 */
import { randomUUID } from 'node:crypto';
import {
  type LoopEvent,
  type McpServerState,
  type McpServerStatus,
  type Message,
  type PermissionDenial,
  type PermissionMode,
  type SessionEvent,
  type StopCause,
  type StopReason,
  type Usage,
  claudeToolInput,
  claudeToolName,
  usageTokens,
} from '../core/index.js';
import { partialMessages } from './stream-json-partial.js';
import {
  type AssistantMessage,
  type InitMessage,
  type ModelUsageRow,
  type ResultBase,
  type UserMessage,
  apiBlock,
  apiUsage,
  modelUsageOf,
  resultSubtype,
  retryError,
} from './stream-json-messages.js';

/** What the init message says about the session. */
export interface StreamJsonSession {
  sessionId: string;
  cwd: string;
  model: string;
  provider: string;
  tools: string[];
  agents: string[];
  /** The MCP servers as the session opened (headless waits for them: up or failed). */
  mcpServers: McpServerStatus[];
  /** Custom slash commands, by name without the `/`. */
  slashCommands: string[];
  skills: string[];
  permissionMode: PermissionMode;
  version: string;
  contextWindow: number;
  maxOutput: number;
}

/** One result: the turns one input message (or the wait for sub-agents) led to. */
export interface TurnGroup {
  cause: StopCause;
  /** The last assistant text of these turns. */
  text: string;
  /** The reason in words, for an error result. */
  error?: string;
  turns: number;
  durationMs: number;
  /** The parent's own usage in these turns. */
  usage: Usage;
  /** Parent and sub-agents, the whole session so far. */
  totals: Usage;
  costUsd: number | undefined;
  /**
   * The session's usage by model (the parent's and each job's on it), with each model's figures;
   * absent: all of it on the session's model.
   */
  models?: ModelUsageRow[];
  jobs: unknown[];
  /** Calls the permission gate refused in these turns (Claude Code's `permission_denials`). */
  denials?: PermissionDenial[];
}

/** Claude Code's words for a server's state. */
const MCP_STATUS: Record<McpServerState, string> = {
  starting: 'pending',
  ready: 'connected',
  failed: 'failed',
  'needs-auth': 'needs-auth',
};

const MODES: Record<PermissionMode, InitMessage['permissionMode']> = {
  default: 'default',
  'accept-edits': 'acceptEdits',
  plan: 'plan',
  yolo: 'bypassPermissions',
};

/**
 * The formatter: feed it the session's events in order, then a result per turn group.
 * `now` measures `duration_api_ms` (from each model call's turn_start to its message).
 */
export function createStreamJson(
  info: StreamJsonSession,
  write: (line: object) => void,
  options: { partial?: boolean; now?: () => number } = {},
) {
  const now = options.now ?? Date.now;
  const base = () => ({ session_id: info.sessionId, uuid: randomUUID() });
  // --include-partial-messages: the Messages API's stream events, rebuilt from the deltas.
  const partial = options.partial ? partialMessages(info, (event, jobId) => write(streamEvent(event, jobId))) : undefined;
  const streamEvent = (event: object, jobId: string | undefined) => ({
    type: 'stream_event',
    event,
    parent_tool_use_id: parentOf(jobId),
    ...base(),
    ...(jobId ? { agent_id: jobId } : {}),
  });
  const lastUsage = new Map<string, Usage>();
  const callIds = new Map<string, string>();
  let turnStartedAt: number | undefined;
  let apiMs = 0;
  let stopReason: StopReason | undefined;
  let contextTokens = 0;

  const assistant = (message: Message, reason: StopReason, source: string | undefined): AssistantMessage => ({
    type: 'assistant',
    message: {
      id: `msg_${randomUUID().replace(/-/g, '')}`,
      type: 'message',
      role: 'assistant',
      model: info.model,
      content: message.content.flatMap(apiBlock),
      stop_reason: reason === 'other' ? null : reason,
      stop_sequence: null,
      stop_details: null,
      container: null,
      context_management: null,
      diagnostics: null,
      usage: apiUsage(lastUsage.get(source ?? '') ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }),
    },
    parent_tool_use_id: parentOf(source),
    ...base(),
    ...(source ? { agent_id: source } : {}),
  });
  const user = (content: UserMessage['message']['content'], source: string | undefined, synthetic = false): UserMessage => ({
    type: 'user',
    message: { role: 'user', content },
    parent_tool_use_id: parentOf(source),
    ...base(),
    ...(synthetic ? { isSynthetic: true } : {}),
    ...(source ? { agent_id: source } : {}),
  });
  const parentOf = (jobId: string | undefined) => (jobId === undefined ? null : (callIds.get(jobId) ?? null));

  /** A loop event of the parent (`jobId` undefined) or of a sub-agent. */
  const loopEvent = (event: LoopEvent, jobId: string | undefined) => {
    partial?.(event, jobId);
    switch (event.type) {
      case 'turn_start':
        if (jobId === undefined) turnStartedAt = now();
        return;
      case 'usage':
        lastUsage.set(jobId ?? '', event.usage);
        if (jobId === undefined) contextTokens = usageTokens(event.usage);
        return;
      case 'message_end':
        if (jobId === undefined) {
          if (turnStartedAt !== undefined) apiMs += now() - turnStartedAt;
          turnStartedAt = undefined;
          stopReason = event.stopReason;
        }
        return write(assistant(event.message, event.stopReason, jobId));
      case 'tool_end':
        return write({
          ...user([{ type: 'tool_result', tool_use_id: event.id, content: event.content, is_error: event.isError }], jobId),
          // Claude Code's copy of the result for programs; outrider's results are text.
          tool_use_result: event.isError ? `Error: ${event.content}` : event.content,
        });
      case 'injected': {
        const text = event.message.content.flatMap((b) => (b.type === 'text' ? [{ type: 'text' as const, text: b.text }] : []));
        return text.length ? write(user(text, jobId, true)) : undefined;
      }
      case 'retry':
        return write({
          type: 'system',
          subtype: 'api_retry',
          attempt: event.attempt,
          max_retries: event.maxRetries,
          retry_delay_ms: event.delayMs,
          error_status: Number(event.reason.match(/\((\d{3})\)/)?.[1]) || null,
          error: retryError(event.reason),
          reason: event.reason,
          ...base(),
          ...(jobId ? { agent_id: jobId, parent_tool_use_id: parentOf(jobId) } : {}),
        });
      case 'compact':
        return write({
          type: 'system',
          subtype: 'compact_boundary',
          compact_metadata: { trigger: 'auto', pre_tokens: contextTokens },
          removed_messages: event.removedMessages,
          summary_chars: event.summaryChars,
          ...base(),
        });
      case 'notice':
        return write({
          type: 'system',
          subtype: 'notice',
          level: event.level,
          text: event.text,
          ...base(),
          ...(jobId ? { agent_id: jobId } : {}),
        });
      case 'hook':
        return write({
          type: 'system',
          subtype: 'hook',
          hook_event_name: event.event,
          command: event.command,
          outcome: event.outcome,
          ...(event.text !== undefined ? { text: event.text } : {}),
          ...(event.message !== undefined ? { message: event.message } : {}),
          ...(event.tool ? { tool: event.tool } : {}),
          ...base(),
          ...(jobId ? { agent_id: jobId } : {}),
        });
      // Deltas, tool starts and turn ends are in the assistant and user messages already; a wait
      // at the rate-limit gate follows a limit that was an api_retry of the call that met it.
      case 'rate_limit':
      case 'text_delta':
      case 'thinking_delta':
      case 'tool_start':
      case 'tool_update':
      case 'turn_end':
      case 'run_end':
        return;
      default: {
        const unhandled: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unhandled)}`);
      }
    }
  };

  return {
    init(): void {
      const init: InitMessage = {
        type: 'system',
        subtype: 'init',
        ...base(),
        cwd: info.cwd,
        model: info.model,
        tools: info.tools,
        agents: info.agents,
        permissionMode: MODES[info.permissionMode],
        apiKeySource: info.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'none',
        claude_code_version: info.version,
        mcp_servers: info.mcpServers.map((server) => ({ name: server.name, status: MCP_STATUS[server.state] })),
        slash_commands: info.slashCommands,
        output_style: 'default',
        skills: info.skills,
        plugins: [],
        outrider_version: info.version,
        provider: info.provider,
      };
      write(init);
    },

    event(event: SessionEvent): void {
      switch (event.type) {
        case 'job_state':
          if (event.job.callId !== undefined) callIds.set(event.job.id, event.job.callId);
          return write({
            type: 'system',
            subtype: 'job_state',
            job: event.job,
            parent_tool_use_id: parentOf(event.job.id),
            ...base(),
          });
        case 'job_event':
          return loopEvent(event.event, event.jobId);
        case 'job_delivered':
          return write({ type: 'system', subtype: 'job_delivered', job_ids: event.jobIds, via: event.via, ...base() });
        case 'budget_reached':
          return write({
            type: 'system',
            subtype: 'budget_reached',
            limit: event.limit,
            budget: event.budget,
            used: event.used,
            stopped: event.stopped,
            ...base(),
          });
        case 'todos':
          return write({ type: 'system', subtype: 'todos', todos: event.todos, ...base() });
        case 'mcp_server':
          return write({
            type: 'system',
            subtype: 'mcp_server',
            server: event.server,
            status: MCP_STATUS[event.server.state],
            ...base(),
          });
        case 'tools_changed':
          return write({ type: 'system', subtype: 'tools_changed', added: event.added, removed: event.removed, ...base() });
        case 'model_changed':
          return write({ type: 'system', subtype: 'model_changed', model: event.model, effort: event.effort, ...base() });
        case 'submit':
          return;
        default:
          return loopEvent(event, undefined);
      }
    },

    /** Something the user should know before the first turn (a bad agent file, a server that failed). */
    warning(message: string): void {
      write({ type: 'system', subtype: 'warning', message, ...base() });
    },

    result(group: TurnGroup): void {
      const subtype = resultSubtype(group.cause);
      const common: ResultBase = {
        type: 'result',
        is_error: subtype !== 'success',
        duration_ms: group.durationMs,
        duration_api_ms: apiMs,
        num_turns: group.turns,
        result: group.text,
        stop_reason: stopReason ?? null,
        total_cost_usd: group.costUsd ?? 0,
        usage: apiUsage(group.usage),
        // One entry per model the session used, sub-agents' included (each job's own is in `jobs`).
        modelUsage: group.models
          ? modelUsageOf(group.models)
          : modelUsageOf([{ ...info, model: info.model, usage: group.totals, cost: group.costUsd }]),
        permission_denials: (group.denials ?? [])
          .filter((denial) => denial.jobId === undefined)
          .map((denial) => ({
            tool_name: claudeToolName(denial.toolName),
            tool_use_id: denial.callId ?? '',
            tool_input: toolInput(denial.toolName, denial.args, info.cwd),
          })),
        ...base(),
        jobs: group.jobs,
      };
      apiMs = 0;
      stopReason = undefined;
      write(subtype === 'success' ? { ...common, subtype } : { ...common, subtype, errors: [group.error ?? group.cause.kind] });
    },
  };
}

/** A denied call's input as Claude Code reports it: an object, with Claude Code's field names. */
function toolInput(toolName: string, args: unknown, cwd: string): Record<string, unknown> {
  const input = claudeToolInput(toolName, args, cwd);
  return input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}
