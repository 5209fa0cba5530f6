/**
 * A local copy of the message types of `@anthropic-ai/claude-agent-sdk` (version 0.3.334,
 * `sdk.d.ts`) that `--output-format stream-json` emits and `--input-format stream-json`
 * reads. The package is not installed (it pulls a native binary as an optional
 * dependency), so its shapes are copied here: every required field exactly, with the same
 * imports from `@anthropic-ai/sdk`; optional fields that name types not copied are `unknown`,
 * so a field of ours with the same name still has to exist there. Once the package is
 * installed, replace the declarations below with
 * `export type { SDKSystemMessage, … } from '@anthropic-ai/claude-agent-sdk';`.
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources';
import type { BetaMessage, BetaUsage } from '@anthropic-ai/sdk/resources/beta/messages/messages.mjs';
import type { UUID } from 'node:crypto';
import * as z from 'zod';

export type ApiKeySource =
  'ANTHROPIC_API_KEY' | 'apiKeyHelper' | '/login managed key' | 'none' | 'user' | 'project' | 'org' | 'temporary' | 'oauth';

export type PermissionMode = 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan' | 'dontAsk' | 'auto';

export type SDKAssistantMessageError =
  | 'authentication_failed'
  | 'oauth_org_not_allowed'
  | 'account_on_hold'
  | 'verification_required'
  | 'billing_error'
  | 'rate_limit'
  | 'overloaded'
  | 'invalid_request'
  | 'model_not_found'
  | 'server_error'
  | 'unknown'
  | 'max_output_tokens'
  | 'cloud_credential_error';

export type NonNullableUsage = {
  [K in keyof BetaUsage]: K extends 'fallback_credit' ? BetaUsage[K] : NonNullable<BetaUsage[K]>;
};

export type ModelUsage = {
  inputTokens: number;
  outputTokens: number;
  thinkingTokens?: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  cacheCreationEphemeral5mInputTokens?: number;
  cacheCreationEphemeral1hInputTokens?: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
  canonicalModel?: string;
  provider?: string;
  costBasis?: 'list' | 'managed' | 'unknown';
};

export type SDKPermissionDenial = {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
};

export type SDKSystemMessage = {
  type: 'system';
  subtype: 'init';
  agents?: string[];
  apiKeySource: ApiKeySource;
  betas?: string[];
  claude_code_version: string;
  cwd: string;
  tools: string[];
  mcp_servers: { name: string; status: string; source?: string }[];
  model: string;
  permissionMode: PermissionMode;
  slash_commands: string[];
  terminal_slash_commands?: string[];
  output_style: string;
  skills: string[];
  plugins: { name: string; path: string; version?: string }[];
  plugin_errors?: unknown[];
  fast_mode_state?: unknown;
  fast_mode_disabled_reason?: unknown;
  effort?: ('low' | 'medium' | 'high' | 'xhigh' | 'max') | null;
  view_mode?: 'focus' | 'default';
  capabilities?: string[];
  uuid: UUID;
  session_id: string;
};

export type SDKAssistantMessage = {
  type: 'assistant';
  message: BetaMessage;
  parent_tool_use_id: string | null;
  error?: SDKAssistantMessageError;
  uuid: UUID;
  session_id: string;
  request_id?: string;
  user_message_uuid?: string;
  user_message_uuids?: string[];
  resume_reason?: string;
  resumed_from_incomplete_thinking?: true;
  supersedes?: UUID[];
  aborted?: true;
  agent_id?: string;
  subagent_type?: string;
  task_description?: string;
  timestamp?: string;
  context_usage?: unknown;
  usage_report?: unknown;
};

export type SDKUserMessage = {
  type: 'user';
  message: MessageParam;
  parent_tool_use_id: string | null;
  isSynthetic?: boolean;
  tool_use_result?: unknown;
  priority?: 'now' | 'next' | 'later';
  origin?: unknown;
  shouldQuery?: boolean;
  timestamp?: string;
  client_composed?: true;
  uuid?: UUID;
  pasted_content?: MessageParam['content'][];
  inline_pastes?: string[];
  session_id?: string;
  agent_id?: string;
  subagent_type?: string;
  task_description?: string;
};

/** The fields both result variants share (the SDK spells them out in each). */
type ResultCommon = {
  type: 'result';
  duration_ms: number;
  duration_api_ms: number;
  is_error: boolean;
  num_turns: number;
  stop_reason: string | null;
  total_cost_usd: number;
  usage: NonNullableUsage;
  modelUsage: Record<string, ModelUsage>;
  permission_denials: SDKPermissionDenial[];
  queued_turn_count?: number;
  terminal_reason?: unknown;
  user_message_uuid?: string;
  user_message_uuids?: string[];
  uuid: UUID;
  session_id: string;
};

export type SDKResultSuccess = ResultCommon & {
  subtype: 'success';
  result: string;
  structured_output?: unknown;
  deferred_tool_use?: unknown;
  result_index?: number;
};

export type SDKResultError = ResultCommon & {
  subtype: 'error_during_execution' | 'error_max_turns' | 'error_max_budget_usd' | 'error_max_structured_output_retries';
  errors: string[];
  startup_failure_reason?: unknown;
  invalid_config_file?: unknown;
};

export type SDKResultMessage = SDKResultSuccess | SDKResultError;

export type SDKAPIRetryMessage = {
  type: 'system';
  subtype: 'api_retry';
  attempt: number;
  max_retries: number;
  retry_delay_ms: number;
  error_status: number | null;
  error: SDKAssistantMessageError;
  no_response?: { waited_ms: number; retry_wait_ms: number };
  uuid: UUID;
  session_id: string;
};

export type SDKCompactBoundaryMessage = {
  type: 'system';
  subtype: 'compact_boundary';
  compact_metadata: {
    trigger: 'manual' | 'auto';
    pre_tokens: number;
    post_tokens?: number;
    duration_ms?: number;
    preserved_segment?: unknown;
    preserved_messages?: unknown;
  };
  uuid: UUID;
  session_id: string;
};

/** The messages outrider writes, of the SDK's union `SDKMessage`. */
export type SDKMessage =
  SDKSystemMessage | SDKAssistantMessage | SDKUserMessage | SDKResultMessage | SDKAPIRetryMessage | SDKCompactBoundaryMessage;

// Runtime checks of the same shapes, for lines read off a real run. Each schema's inferred
// type must be assignable to the SDK type above (checked at the end of this file by tsc),
// so a line that passes a schema is a value of the SDK's type.

const uuid = z.uuid() as unknown as z.ZodType<UUID>;

const usage = z.object({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  cache_creation_input_tokens: z.number().int().min(0),
  cache_read_input_tokens: z.number().int().min(0),
  cache_creation: z.object({ ephemeral_1h_input_tokens: z.number(), ephemeral_5m_input_tokens: z.number() }),
  server_tool_use: z.object({ web_fetch_requests: z.number(), web_search_requests: z.number() }),
  output_tokens_details: z.object({ thinking_tokens: z.number() }),
  iterations: z.array(z.never()),
  inference_geo: z.string(),
  service_tier: z.enum(['standard', 'priority', 'batch']),
  speed: z.enum(['standard', 'fast']),
  fallback_credit: z.null(),
});

const block = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string(), citations: z.null() }),
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
]);

const permissionMode = z.enum(['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk', 'auto']);

export const initSchema = z.object({
  type: z.literal('system'),
  subtype: z.literal('init'),
  agents: z.array(z.string()).optional(),
  apiKeySource: z.enum(['ANTHROPIC_API_KEY', 'apiKeyHelper', '/login managed key', 'none']),
  claude_code_version: z.string(),
  cwd: z.string(),
  tools: z.array(z.string()),
  mcp_servers: z.array(z.object({ name: z.string(), status: z.string() })),
  model: z.string(),
  permissionMode,
  slash_commands: z.array(z.string()),
  output_style: z.string(),
  skills: z.array(z.string()),
  plugins: z.array(z.object({ name: z.string(), path: z.string() })),
  uuid,
  session_id: z.string(),
});

export const assistantSchema = z.object({
  type: z.literal('assistant'),
  message: z.object({
    id: z.string(),
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string(),
    content: z.array(block),
    stop_reason: z.enum(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal']).nullable(),
    stop_sequence: z.null(),
    stop_details: z.null(),
    container: z.null(),
    context_management: z.null(),
    diagnostics: z.null(),
    usage,
  }),
  parent_tool_use_id: z.string().nullable(),
  agent_id: z.string().optional(),
  uuid,
  session_id: z.string(),
});

export const userSchema = z.object({
  type: z.literal('user'),
  message: z.object({
    role: z.literal('user'),
    content: z.array(
      z.discriminatedUnion('type', [
        z.object({ type: z.literal('tool_result'), tool_use_id: z.string(), content: z.string(), is_error: z.boolean() }),
        z.object({ type: z.literal('text'), text: z.string() }),
      ]),
    ),
  }),
  parent_tool_use_id: z.string().nullable(),
  isSynthetic: z.boolean().optional(),
  agent_id: z.string().optional(),
  uuid,
  session_id: z.string(),
});

const modelUsage = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
  webSearchRequests: z.number(),
  costUSD: z.number(),
  contextWindow: z.number(),
  maxOutputTokens: z.number(),
});

const resultCommon = {
  type: z.literal('result'),
  duration_ms: z.number().min(0),
  duration_api_ms: z.number().min(0),
  is_error: z.boolean(),
  num_turns: z.number().int().min(0),
  stop_reason: z.string().nullable(),
  total_cost_usd: z.number().min(0),
  usage,
  modelUsage: z.record(z.string(), modelUsage),
  permission_denials: z.array(
    z.object({ tool_name: z.string(), tool_use_id: z.string(), tool_input: z.record(z.string(), z.unknown()) }),
  ),
  uuid,
  session_id: z.string(),
};

export const resultSchema = z.discriminatedUnion('subtype', [
  z.object({ ...resultCommon, subtype: z.literal('success'), result: z.string() }),
  z.object({
    ...resultCommon,
    subtype: z.enum(['error_during_execution', 'error_max_turns', 'error_max_budget_usd', 'error_max_structured_output_retries']),
    errors: z.array(z.string()),
  }),
]);

export const apiRetrySchema = z.object({
  type: z.literal('system'),
  subtype: z.literal('api_retry'),
  attempt: z.number(),
  max_retries: z.number(),
  retry_delay_ms: z.number(),
  error_status: z.number().nullable(),
  error: z.enum(['rate_limit', 'overloaded', 'server_error', 'unknown']),
  uuid,
  session_id: z.string(),
});

export const compactBoundarySchema = z.object({
  type: z.literal('system'),
  subtype: z.literal('compact_boundary'),
  compact_metadata: z.object({ trigger: z.enum(['manual', 'auto']), pre_tokens: z.number() }),
  uuid,
  session_id: z.string(),
});

/** Outrider's own system subtypes (job_state, job_delivered, …): the SDK's common envelope. */
export const otherSystemSchema = z.object({ type: z.literal('system'), subtype: z.string(), uuid, session_id: z.string() });

/** Checks one line of `--output-format stream-json`: the SDK's shape for its type and subtype; throws a zod error if not. */
export function parseSdkLine(line: unknown): SDKMessage | z.infer<typeof otherSystemSchema> {
  const { type, subtype } = (line ?? {}) as { type?: unknown; subtype?: unknown };
  if (type === 'assistant') return assistantSchema.parse(line);
  if (type === 'user') return userSchema.parse(line);
  if (type === 'result') return resultSchema.parse(line);
  if (type === 'system' && subtype === 'init') return initSchema.parse(line);
  if (type === 'system' && subtype === 'api_retry') return apiRetrySchema.parse(line);
  if (type === 'system' && subtype === 'compact_boundary') return compactBoundarySchema.parse(line);
  return otherSystemSchema.parse(line);
}

// tsc checks here that every schema describes a value of the SDK's type.
type Is<T, U extends T> = U;
export type SchemaChecks = [
  Is<SDKSystemMessage, z.infer<typeof initSchema>>,
  Is<SDKAssistantMessage, z.infer<typeof assistantSchema>>,
  Is<SDKUserMessage, z.infer<typeof userSchema>>,
  Is<SDKResultMessage, z.infer<typeof resultSchema>>,
  Is<SDKAPIRetryMessage, z.infer<typeof apiRetrySchema>>,
  Is<SDKCompactBoundaryMessage, z.infer<typeof compactBoundarySchema>>,
];
