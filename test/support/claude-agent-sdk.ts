/**
 * The message types of `@anthropic-ai/claude-agent-sdk` (a test-only dependency) that
 * `--output-format stream-json` emits and `--input-format stream-json` reads, with runtime
 * schemas of the same shapes below: tsc checks that each schema describes a value of the
 * SDK's own type, so a line that passes a schema is a value the SDK's programs can read.
 */
import type {
  SDKAPIRetryMessage,
  SDKAssistantMessage,
  SDKCompactBoundaryMessage,
  SDKMessage,
  SDKResultMessage,
  SDKSystemMessage,
  SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import type { UUID } from 'node:crypto';
import * as z from 'zod';

export type {
  SDKAPIRetryMessage,
  SDKAssistantMessage,
  SDKCompactBoundaryMessage,
  SDKMessage,
  SDKResultMessage,
  SDKSystemMessage,
  SDKUserMessage,
};

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
