/**
 * Claude Code's message shapes for `--output-format stream-json` (those of
 * `@anthropic-ai/claude-agent-sdk`'s `SDKMessage`), and the conversions of outrider's usage,
 * blocks and stop causes into them. stream-json.ts writes the stream.
 */
import type { UUID } from 'node:crypto';
import type { ContentBlock, StopCause, StopReason, Usage } from '../core/index.js';

/** Usage as the Messages API reports it; every field filled (the SDK's `NonNullableUsage`). */
export interface ApiUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_1h_input_tokens: number; ephemeral_5m_input_tokens: number };
  server_tool_use: { web_fetch_requests: number; web_search_requests: number };
  output_tokens_details: { thinking_tokens: number };
  iterations: never[];
  inference_geo: string;
  service_tier: 'standard';
  speed: 'standard';
  fallback_credit: null;
}

type ApiBlock =
  | { type: 'text'; text: string; citations: null }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

type ApiStopReason = Exclude<StopReason, 'other'> | null;

export interface InitMessage {
  type: 'system';
  subtype: 'init';
  session_id: string;
  uuid: UUID;
  cwd: string;
  model: string;
  tools: string[];
  agents: string[];
  permissionMode: 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan';
  apiKeySource: 'ANTHROPIC_API_KEY' | 'none';
  claude_code_version: string;
  mcp_servers: { name: string; status: string }[];
  slash_commands: string[];
  output_style: string;
  skills: string[];
  plugins: { name: string; path: string }[];
  /** Outrider's own: which program wrote the stream, and which provider it talks to. */
  outrider_version: string;
  provider: string;
}

export interface AssistantMessage {
  type: 'assistant';
  message: {
    id: string;
    type: 'message';
    role: 'assistant';
    model: string;
    content: ApiBlock[];
    stop_reason: ApiStopReason;
    stop_sequence: null;
    stop_details: null;
    container: null;
    context_management: null;
    diagnostics: null;
    usage: ApiUsage;
  };
  parent_tool_use_id: string | null;
  session_id: string;
  uuid: UUID;
  /** The sub-agent (job id) that wrote it; absent on the parent's messages. */
  agent_id?: string;
}

export interface UserMessage {
  type: 'user';
  message: {
    role: 'user';
    content: (
      { type: 'tool_result'; tool_use_id: string; content: string; is_error: boolean } | { type: 'text'; text: string }
    )[];
  };
  parent_tool_use_id: string | null;
  session_id: string;
  uuid: UUID;
  isSynthetic?: boolean;
  agent_id?: string;
}

export interface ResultBase {
  type: 'result';
  is_error: boolean;
  duration_ms: number;
  duration_api_ms: number;
  num_turns: number;
  result: string;
  stop_reason: string | null;
  total_cost_usd: number;
  usage: ApiUsage;
  modelUsage: Record<string, ModelUsage>;
  permission_denials: { tool_name: string; tool_use_id: string; tool_input: Record<string, unknown> }[];
  session_id: string;
  uuid: UUID;
  /** Outrider's own: every sub-agent job of the session. */
  jobs: unknown[];
}

export type ResultMessage =
  | (ResultBase & { subtype: 'success' })
  | (ResultBase & { subtype: 'error_max_turns' | 'error_during_execution'; errors: string[] });

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
}

/** Some usage on one model, with the model's figures: a `modelUsage` entry's makings. */
export interface ModelUsageRow {
  model: string;
  usage: Usage;
  /** Undefined when the model has no known price. */
  cost?: number;
  contextWindow: number;
  maxOutput: number;
}

/** Claude Code's `modelUsage`: one entry per model. */
export function modelUsageOf(rows: readonly ModelUsageRow[]): Record<string, ModelUsage> {
  return Object.fromEntries(
    rows.map((row) => [
      row.model,
      {
        inputTokens: row.usage.input,
        outputTokens: row.usage.output,
        cacheReadInputTokens: row.usage.cacheRead,
        cacheCreationInputTokens: row.usage.cacheWrite,
        webSearchRequests: 0,
        costUSD: row.cost ?? 0,
        contextWindow: row.contextWindow,
        maxOutputTokens: row.maxOutput,
      },
    ]),
  );
}

/** `success`, `error_max_turns`, or `error_during_execution` for every other way a run fails. */
export function resultSubtype(cause: StopCause): ResultMessage['subtype'] {
  if (cause.kind === 'completed') return 'success';
  if (cause.kind === 'limit' && cause.limit === 'maxTurns') return 'error_max_turns';
  return 'error_during_execution';
}

export function apiUsage(usage: Usage): ApiUsage {
  return {
    input_tokens: usage.input,
    output_tokens: usage.output,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
    // Outrider asks for the default (5-minute) cache only.
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: usage.cacheWrite },
    server_tool_use: { web_fetch_requests: 0, web_search_requests: 0 },
    output_tokens_details: { thinking_tokens: 0 },
    iterations: [],
    inference_geo: '',
    service_tier: 'standard',
    speed: 'standard',
    fallback_credit: null,
  };
}

export function apiBlock(block: ContentBlock): ApiBlock[] {
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: block.text, citations: null }];
    case 'thinking':
      return [{ type: 'thinking', thinking: block.thinking, signature: block.signature ?? '' }];
    case 'tool_use':
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
    case 'image':
    case 'tool_result':
      // An assistant message carries neither.
      return [];
  }
}

/** The SDK's error kinds for a retried call, from the provider layer's reason. */
export function retryError(reason: string): 'rate_limit' | 'overloaded' | 'server_error' | 'unknown' {
  if (/rate limited/.test(reason)) return 'rate_limit';
  if (/overloaded/.test(reason)) return 'overloaded';
  if (/server error/.test(reason)) return 'server_error';
  return 'unknown';
}
