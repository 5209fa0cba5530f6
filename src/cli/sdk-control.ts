/**
 * The Claude Agent SDK's control requests as outrider answers them (on the channel of
 * stream-control.ts): `initialize` (its system prompt, appended text and agents shape the
 * session), `interrupt` (ends the running turn), `set_permission_mode`, `mcp_status`, and
 * `can_use_tool`, which outrider asks the SDK (its `canUseTool`) under
 * `--permission-prompt-tool stdio`; its in-process MCP servers are reached through sdk-mcp.ts.
 * See docs/claude-code.md.
 */
import {
  claudeToolInput,
  claudeToolName,
  fromClaudeToolInput,
  type OpenedSession,
  type PermissionMode,
  type PermissionPrompt,
  sessionCommands,
  type SessionSetup,
} from '../core/index.js';
import { MAX_SDK_MCP_SERVERS, SdkMcpHost } from './sdk-mcp.js';
import type { StreamChannel } from './stream-control.js';

/** What an `initialize` request changes in the session to open, and what of it outrider does not do. */
export interface InitializeSetup {
  systemPrompt?: string;
  appendSystemPrompt?: string;
  /** The request's agents, as `--agents` JSON (Claude Code's format, the same). */
  agentsJson?: string;
  /** The SDK's hook callbacks as hook settings (`type: "callback"`, the callback id as `command`). */
  sdkHooks?: Record<string, Array<{ matcher?: string; hooks: Array<{ type: string; command: string; timeout?: number }> }>>;
  /** The names of the SDK's in-process MCP servers (`sdkMcpServers`), reached with `mcp_message`. */
  sdkMcpServers?: string[];
  warnings: string[];
}

/** Reads an `initialize` request: the fields outrider honours, and a warning naming the others. */
export function initializeSetup(request: Record<string, unknown>): InitializeSetup {
  const setup: InitializeSetup = { warnings: [] };
  const { systemPrompt, appendSystemPrompt, agents } = request;
  if (typeof systemPrompt === 'string') setup.systemPrompt = systemPrompt;
  // The SDK sends `[""]` for its default (Claude Code's own prompt): outrider's own then.
  else if (Array.isArray(systemPrompt) && systemPrompt.join('').trim() !== '') setup.systemPrompt = systemPrompt.join('\n\n');
  if (typeof appendSystemPrompt === 'string' && appendSystemPrompt.trim()) setup.appendSystemPrompt = appendSystemPrompt;
  if (agents && typeof agents === 'object' && Object.keys(agents).length) setup.agentsJson = JSON.stringify(agents);
  const hooks = sdkHooks(request.hooks);
  if (hooks) setup.sdkHooks = hooks;
  const servers = sdkMcpServerNames(request.sdkMcpServers, setup.warnings);
  if (servers.length) setup.sdkMcpServers = servers;
  const unhonoured = [request.jsonSchema !== undefined && 'jsonSchema'].filter(
    (item): item is string => typeof item === 'string',
  );
  if (unhonoured.length)
    setup.warnings.push(`initialize: outrider does not honour ${unhonoured.join(', ')} (see docs/claude-code.md)`);
  return setup;
}

/** The session setup with what the SDK's `initialize` asked for (flags given on the command line win). */
export function withInitialize<T extends SessionSetup>(setup: T, init: InitializeSetup | undefined, channel?: StreamChannel): T {
  if (!init) return setup;
  const agents =
    init.agentsJson && setup.agentsJson ? joinAgents(init.agentsJson, setup.agentsJson) : (setup.agentsJson ?? init.agentsJson);
  return {
    ...setup,
    ...(setup.systemPrompt === undefined && init.systemPrompt !== undefined ? { systemPrompt: init.systemPrompt } : {}),
    ...(init.appendSystemPrompt !== undefined
      ? { appendSystemPrompt: [setup.appendSystemPrompt, init.appendSystemPrompt].filter(Boolean).join('\n\n') }
      : {}),
    ...(agents !== undefined ? { agentsJson: agents } : {}),
    // The SDK's hooks run in the SDK: each a `hook_callback` control request, answered with the hook's output.
    ...(init.sdkHooks && channel
      ? {
          sdkHooks: init.sdkHooks,
          hookCallback: (id: string, input: Record<string, unknown>, signal: AbortSignal) =>
            channel.request(
              {
                subtype: 'hook_callback',
                callback_id: id,
                input,
                ...(typeof input.tool_use_id === 'string' ? { tool_use_id: input.tool_use_id } : {}),
              },
              signal,
            ),
        }
      : {}),
    // Its in-process MCP servers: each message a `mcp_message` control request, answered with the server's reply.
    ...(init.sdkMcpServers && channel ? { sdkMcpServers: new SdkMcpHost(channel, init.sdkMcpServers).servers() } : {}),
  };
}

/** `sdkMcpServers`: the names (strings, each once, a bounded number); what is left out is said in `warnings`. */
function sdkMcpServerNames(value: unknown, warnings: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    warnings.push('initialize: sdkMcpServers must be a list of server names; no in-process MCP server starts');
    return [];
  }
  const names = [...new Set(value.filter((name): name is string => typeof name === 'string' && name !== ''))];
  if (names.length < value.length)
    warnings.push('initialize: sdkMcpServers entries that are not names (or repeat one) are left out');
  if (names.length > MAX_SDK_MCP_SERVERS)
    warnings.push(`initialize: only the first ${MAX_SDK_MCP_SERVERS} of ${names.length} in-process MCP servers start`);
  return names.slice(0, MAX_SDK_MCP_SERVERS);
}

/** The SDK's agents and `--agents`' (the flag's win a name); a flag that is not JSON is left for openSession to refuse. */
function joinAgents(fromInit: string, fromFlag: string): string {
  try {
    return JSON.stringify({ ...(JSON.parse(fromInit) as object), ...(JSON.parse(fromFlag) as object) });
  } catch {
    return fromFlag;
  }
}

/** The success payload of `initialize` (the SDK's SDKControlInitializeResponse). */
export function initializeResponse(opened: OpenedSession, version: string): Record<string, unknown> {
  return {
    commands: sessionCommands(opened),
    agents: opened.agentNames.map((name) => ({ name, description: '' })),
    output_style: 'default',
    available_output_styles: ['default'],
    // What `supportedModels()` lists and `setModel()` takes: the catalogue's models of this provider.
    models: opened.models().map((entry) => ({
      value: entry.id,
      displayName: entry.aliases.length ? `${entry.id} (${entry.aliases.join(', ')})` : entry.id,
      description: `${opened.provider} model, ${entry.info.contextWindow.toLocaleString('en-US')}-token window`,
    })),
    account: { apiProvider: 'firstParty' },
    claude_code_version: version,
    pid: process.pid,
  };
}

const SDK_MODES: Readonly<Record<string, PermissionMode>> = {
  default: 'default',
  acceptEdits: 'accept-edits',
  plan: 'plan',
  bypassPermissions: 'yolo',
};
const CLAUDE_MODE: Readonly<Record<PermissionMode, string>> = {
  default: 'default',
  'accept-edits': 'acceptEdits',
  plan: 'plan',
  yolo: 'bypassPermissions',
};

/** Answers the control requests that do not wait in line: interrupt, mode, model, MCP status. */
export function answerControlRequests(channel: StreamChannel, opened: OpenedSession, interrupt: () => void): void {
  channel.on('interrupt', () => {
    interrupt();
    return { still_queued: [] };
  });
  channel.on('set_permission_mode', (request) => {
    const mode = typeof request.mode === 'string' ? SDK_MODES[request.mode] : undefined;
    if (!mode)
      throw new Error(
        `outrider has no permission mode ${JSON.stringify(request.mode)}; use default, acceptEdits, plan or bypassPermissions`,
      );
    opened.gate.setMode(mode);
    return { mode: CLAUDE_MODE[mode] };
  });
  // `setModel(model)`: the next turns run on it (`setModel()` without one: the session's own); a turn under way keeps its model.
  channel.on('set_model', (request) => {
    const asked = request.model === undefined || request.model === null ? 'default' : request.model;
    if (typeof asked !== 'string') throw new Error('set_model: model must be a string (a model id or an alias)');
    const outcome = opened.switchModel(asked);
    if (!outcome.ok) throw new Error(outcome.error);
    return { model: outcome.target.model };
  });
  channel.on('mcp_status', () => ({
    mcpServers: opened.mcp.statuses().map((server) => ({
      name: server.name,
      status:
        server.state === 'ready'
          ? 'connected'
          : server.state === 'failed' || server.state === 'needs-auth'
            ? server.state
            : 'pending',
    })),
  }));
}

/**
 * `--permission-prompt-tool stdio`: each question goes to the SDK as `can_use_tool`, with
 * Claude Code's tool name and fields (`Bash`, `file_path`); its answer allows (with the input
 * it may have changed, mapped back to outrider's fields) or denies, and a deny with
 * `interrupt` ends the turn.
 */
export function stdioPermissionPrompt(channel: StreamChannel, cwd: string, interrupt: () => void): PermissionPrompt {
  return async (request, signal) => {
    const input = claudeToolInput(request.toolName, request.args, cwd);
    const answer = await channel.request(
      {
        subtype: 'can_use_tool',
        tool_name: claudeToolName(request.toolName),
        input,
        tool_use_id: request.callId ?? '',
        decision_reason: request.reason,
        ...(request.jobId ? { agent_id: request.jobId } : {}),
      },
      signal,
    );
    if (answer.behavior === 'allow') {
      const updated = answer.updatedInput;
      return updated && typeof updated === 'object'
        ? { behavior: 'allow', updatedInput: fromClaudeToolInput(request.toolName, updated as Record<string, unknown>, input) }
        : { behavior: 'allow' };
    }
    if (answer.interrupt === true) interrupt();
    return {
      behavior: 'deny',
      message: typeof answer.message === 'string' && answer.message ? answer.message : `The user denied ${request.toolName}.`,
    };
  };
}

/** `{ PreToolUse: [{ matcher, hookCallbackIds: ["hook_0"], timeout }] }` → hook settings of callbacks. */
function sdkHooks(value: unknown): InitializeSetup['sdkHooks'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const out: NonNullable<InitializeSetup['sdkHooks']> = {};
  for (const [event, matchers] of Object.entries(value as Record<string, unknown>)) {
    if (!Array.isArray(matchers)) continue;
    for (const entry of matchers as Array<{ matcher?: unknown; hookCallbackIds?: unknown; timeout?: unknown }>) {
      const ids = Array.isArray(entry?.hookCallbackIds) ? entry.hookCallbackIds.filter((id) => typeof id === 'string') : [];
      if (ids.length === 0) continue;
      const timeout = typeof entry.timeout === 'number' && entry.timeout > 0 ? Math.min(entry.timeout, 600) : undefined;
      (out[event] ??= []).push({
        ...(typeof entry.matcher === 'string' ? { matcher: entry.matcher } : {}),
        hooks: ids.map((id: string) => ({ type: 'callback', command: id, ...(timeout ? { timeout } : {}) })),
      });
    }
  }
  return Object.keys(out).length ? out : undefined;
}
