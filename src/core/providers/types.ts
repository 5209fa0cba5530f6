/** Normalized conversation and streaming types shared by every provider. */

export type TextBlock = { type: 'text'; text: string };
export type ThinkingBlock = { type: 'thinking'; thinking: string; signature?: string };
export type ToolUseBlock = { type: 'tool_use'; id: string; name: string; input: unknown };
export type ToolResultBlock = {
  type: 'tool_result';
  toolUseId: string;
  /** Plain text the model reads. */
  content: string;
  isError?: boolean;
};

/** The key a provider puts in a tool call's input when its arguments were not valid JSON. */
export const INVALID_JSON_KEY = '__invalid_json';

/** The name a tool call gets when the model gave none (or one no API accepts); the loop answers it with an error. */
export const INVALID_TOOL_NAME = 'invalid_tool_call';

export type ContentBlock = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock;

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
  | { type: 'retry'; attempt: number; maxRetries: number; delayMs: number; reason: string }
  | { type: 'message_end'; message: Message; stopReason: StopReason; usage: Usage };

/** Everything one model call needs. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSchema[];
  maxTokens: number;
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
