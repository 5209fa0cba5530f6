/** Normalized conversation and streaming types shared by every provider. */
import type { ImageMediaType } from '../platform/image-bytes.js';

export type TextBlock = { type: 'text'; text: string };
/**
 * The model's reasoning. Anthropic: a thinking block and its signature (`redacted`: a
 * redacted_thinking block, its data in `signature`), sent back as written. OpenAI Responses: a
 * reasoning item, `itemId` its id and `signature` its encrypted content (the server keeps nothing).
 */
export type ThinkingBlock = { type: 'thinking'; thinking: string; signature?: string; redacted?: boolean; itemId?: string };
/** An image in a user message or a tool result: its bytes base64-encoded, its type read from them (image-block.ts checks both). */
export type ImageBlock = { type: 'image'; mediaType: ImageMediaType; data: string };
export type ToolUseBlock = { type: 'tool_use'; id: string; name: string; input: unknown };
export type ToolResultBlock = {
  type: 'tool_result';
  toolUseId: string;
  /** Plain text the model reads; with images, what they are (`shot.png: PNG image, 1200×800, 84 KB`), for readers of text alone. */
  content: string;
  isError?: boolean;
  /** Images the tool returned (read_file of an image), sent after the text; checked as a user's are (image-block.ts). */
  images?: ImageBlock[];
};

/** The key a provider puts in a tool call's input when its arguments were not valid JSON. */
export const INVALID_JSON_KEY = '__invalid_json';

/** The name a tool call gets when the model gave none (or one no API accepts); the loop answers it with an error. */
export const INVALID_TOOL_NAME = 'invalid_tool_call';

export type ContentBlock = TextBlock | ThinkingBlock | ImageBlock | ToolUseBlock | ToolResultBlock;

/** One conversation message. Tool results travel in user messages, as Anthropic does. */
export type Message = {
  role: 'user' | 'assistant';
  content: ContentBlock[];
  /**
   * Set on a sub-agent completion notice: the jobs it announces. Delivery is confirmed by
   * these ids, so a copy of the message (a clone, a resumed transcript) says the same.
   * Never sent to a provider.
   */
  noticeFor?: string[];
};

/** A tool as the model sees it: JSON Schema parameters. */
export interface ToolSchema {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** Token counts of one response, or a running total. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const emptyUsage = (): Usage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
}

/**
 * Every token a usage counts, read, cached or written. Of one response: how full the context
 * was once it ended (what the next call starts from). Of a running total: what a run spent.
 */
export function usageTokens(usage: Usage): number {
  return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'other';

/** Events a provider stream yields; `message_end` is always last on success. */
export type StreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; argsDelta: string }
  | { type: 'tool_call_end'; index: number }
  | RetryEvent
  | RateLimitEvent
  | { type: 'message_end'; message: Message; stopReason: StopReason; usage: Usage };

/**
 * The attempt failed and the call starts over: every partial delta of the message in flight is
 * void. `rateLimited`: a 429 or 529, which pauses every call to the provider (rate-limit-gate.ts)
 * and spends none of maxRetries; `attempt` then counts the call's rate-limited retries, and
 * `delayMs` is what is left of the pause.
 */
export type RetryEvent = {
  type: 'retry';
  attempt: number;
  maxRetries: number;
  delayMs: number;
  reason: string;
  rateLimited?: boolean;
};

/**
 * The call waits at its provider's rate-limit gate (`waiting`): until `until` (the pause's end, on
 * the session's clock), or, without it, for a place among the fewer calls let through after a
 * limit; `reason` is the last limit (`rate limited (429)`). `waiting: false` once it goes on.
 */
export type RateLimitEvent = { type: 'rate_limit'; waiting: boolean; until?: number; reason?: string };

/** How hard the model reasons: `--effort`, the `effort` setting, an agent file's `effort`. */
export type Effort = 'low' | 'medium' | 'high' | 'max';

export const EFFORT_LEVELS: readonly Effort[] = Object.freeze(['low', 'medium', 'high', 'max'] as const);

export function isEffort(value: unknown): value is Effort {
  return typeof value === 'string' && (EFFORT_LEVELS as readonly string[]).includes(value);
}

/** Everything one model call needs. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSchema[];
  maxTokens: number;
  /** Reasoning effort; sent only to a model the catalogue says takes it (effort.ts). */
  effort?: Effort;
}

/**
 * The one seam between the loop and a provider: tests pass a fake, production passes
 * a provider built by `createProvider`. Throws `ProviderError` on a failure it gave up on.
 */
export type StreamFn = (request: ModelRequest, signal: AbortSignal) => AsyncIterable<StreamEvent>;

export type ProviderName = 'anthropic' | 'openai';

/** A failure the provider could not recover from, phrased for the user. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly options: {
      status?: number;
      /** True when the request was too large for the model's context window. */
      contextTooLong?: boolean;
      retryable?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** Concatenated text blocks of a message. */
export function messageText(message: Message): string {
  return message.content
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

export function toolUses(message: Message): ToolUseBlock[] {
  return message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}
