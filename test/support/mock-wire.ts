/**
 * Wire encodings of a mock reply: the SSE events and JSON bodies the real Anthropic
 * Messages and OpenAI Chat Completions APIs send, shaped so the real SDKs parse them
 * (OpenAI's Responses API: mock-responses-wire.ts).
 */

export type WireFormat = 'anthropic' | 'openai' | 'responses';

/** One scripted tool call; a string `args` is sent as-is (e.g. malformed JSON). */
export interface MockToolCall {
  id?: string;
  name: string;
  args: unknown;
}

/** Normalized usage of a mock reply; `input` excludes cached tokens, as in Usage. */
export interface MockUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Responses: reasoning tokens, a part of `output` (output_tokens_details.reasoning_tokens). */
  reasoning?: number;
}

/** Everything the encoders need, with defaults already filled in. */
export interface ResolvedReply {
  id: string;
  model: string;
  text: string;
  thinking: string;
  signature: string;
  toolCalls: { id: string; name: string; args: string }[];
  usage: MockUsage;
  /** Raw stop reason for the wire, or undefined for the natural default. */
  stopReason?: string;
  includeUsage: boolean;
  /** Anthropic: content blocks sent as written after the scripted ones (malformed output). */
  rawBlocks: RawBlock[];
  /** OpenAI: chunk deltas sent as written before the finish chunk (malformed output). */
  rawDeltas: unknown[];
  /** Responses: events sent as written before response.completed (malformed output). */
  rawEvents: unknown[];
  /** Responses: the request asked for the reasoning's encrypted content (`include`). */
  encryptedReasoning: boolean;
}

/** One Anthropic content block as the wire carries it: the start event's block, then its deltas. */
export interface RawBlock {
  start: unknown;
  deltas?: unknown[];
}

/** One SSE event as written to the socket. */
export type SseChunk = string;

/** Splits text into pieces of at most `size` characters (at least one piece). */
export function splitChunks(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** Splits tool arguments into three fragments so clients must concatenate them. */
export function splitArgs(args: string): string[] {
  if (args.length < 3) return [args];
  const third = Math.ceil(args.length / 3);
  return [args.slice(0, third), args.slice(third, 2 * third), args.slice(2 * third)];
}

const TEXT_CHUNK = 12;

const anthropicStop: Record<string, string> = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' };
const openaiStop: Record<string, string> = { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length' };

function anthropicStopReason(reply: ResolvedReply): string {
  if (reply.stopReason) return anthropicStop[reply.stopReason] ?? reply.stopReason;
  return reply.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

function openaiStopReason(reply: ResolvedReply): string {
  if (reply.stopReason) return openaiStop[reply.stopReason] ?? reply.stopReason;
  return reply.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function sse(event: string | undefined, data: unknown): SseChunk {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return event ? `event: ${event}\ndata: ${payload}\n\n` : `data: ${payload}\n\n`;
}

function anthropicEvent(data: { type: string } & Record<string, unknown>): SseChunk {
  return sse(data.type, data);
}

/** The Anthropic Messages stream: message_start … message_stop. */
export function anthropicStream(reply: ResolvedReply): SseChunk[] {
  const { usage } = reply;
  const chunks: SseChunk[] = [
    anthropicEvent({
      type: 'message_start',
      message: {
        id: reply.id,
        type: 'message',
        role: 'assistant',
        model: reply.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input,
          output_tokens: 1,
          cache_read_input_tokens: usage.cacheRead,
          cache_creation_input_tokens: usage.cacheWrite,
        },
      },
    }),
  ];
  let index = 0;
  if (reply.thinking) {
    chunks.push(
      anthropicEvent({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
    );
    for (const piece of splitChunks(reply.thinking, TEXT_CHUNK)) {
      chunks.push(anthropicEvent({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } }));
    }
    chunks.push(
      anthropicEvent({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: reply.signature } }),
    );
    chunks.push(anthropicEvent({ type: 'content_block_stop', index }));
    index++;
  }
  if (reply.text) {
    chunks.push(anthropicEvent({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    chunks.push(sse('ping', { type: 'ping' }));
    for (const piece of splitChunks(reply.text, TEXT_CHUNK)) {
      chunks.push(anthropicEvent({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }));
    }
    chunks.push(anthropicEvent({ type: 'content_block_stop', index }));
    index++;
  }
  for (const call of reply.toolCalls) {
    chunks.push(
      anthropicEvent({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }),
    );
    for (const piece of splitArgs(call.args)) {
      chunks.push(
        anthropicEvent({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }),
      );
    }
    chunks.push(anthropicEvent({ type: 'content_block_stop', index }));
    index++;
  }
  for (const block of reply.rawBlocks) {
    chunks.push(anthropicEvent({ type: 'content_block_start', index, content_block: block.start }));
    for (const delta of block.deltas ?? []) chunks.push(anthropicEvent({ type: 'content_block_delta', index, delta }));
    chunks.push(anthropicEvent({ type: 'content_block_stop', index }));
    index++;
  }
  chunks.push(
    anthropicEvent({
      type: 'message_delta',
      delta: { stop_reason: anthropicStopReason(reply), stop_sequence: null },
      usage: { output_tokens: usage.output },
    }),
  );
  chunks.push(anthropicEvent({ type: 'message_stop' }));
  return chunks;
}

/** The non-streaming Anthropic Messages body. */
export function anthropicBody(reply: ResolvedReply): unknown {
  const content: unknown[] = [];
  if (reply.thinking) content.push({ type: 'thinking', thinking: reply.thinking, signature: reply.signature });
  if (reply.text) content.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls) {
    let input: unknown;
    try {
      input = JSON.parse(call.args);
    } catch {
      input = {};
    }
    content.push({ type: 'tool_use', id: call.id, name: call.name, input });
  }
  return {
    id: reply.id,
    type: 'message',
    role: 'assistant',
    model: reply.model,
    content,
    stop_reason: anthropicStopReason(reply),
    stop_sequence: null,
    usage: {
      input_tokens: reply.usage.input,
      output_tokens: reply.usage.output,
      cache_read_input_tokens: reply.usage.cacheRead,
      cache_creation_input_tokens: reply.usage.cacheWrite,
    },
  };
}

function openaiUsage(usage: MockUsage): unknown {
  const prompt = usage.input + usage.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead },
  };
}

/** The OpenAI Chat Completions stream: chunk deltas, finish_reason, usage, [DONE]. */
export function openaiStream(reply: ResolvedReply): SseChunk[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseChunk =>
    sse(undefined, {
      id: reply.id,
      object: 'chat.completion.chunk',
      created,
      model: reply.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  const chunks: SseChunk[] = [chunk({ role: 'assistant', content: '' })];
  if (reply.thinking) {
    for (const piece of splitChunks(reply.thinking, TEXT_CHUNK)) chunks.push(chunk({ reasoning_content: piece }));
  }
  if (reply.text) {
    for (const piece of splitChunks(reply.text, TEXT_CHUNK)) chunks.push(chunk({ content: piece }));
  }
  reply.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of splitArgs(call.args)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  for (const delta of reply.rawDeltas) chunks.push(chunk(delta as Record<string, unknown>));
  chunks.push(chunk({}, openaiStopReason(reply)));
  if (reply.includeUsage) {
    chunks.push(
      sse(undefined, {
        id: reply.id,
        object: 'chat.completion.chunk',
        created,
        model: reply.model,
        choices: [],
        usage: openaiUsage(reply.usage),
      }),
    );
  }
  chunks.push(sse(undefined, '[DONE]'));
  return chunks;
}

/** The non-streaming OpenAI Chat Completions body. */
export function openaiBody(reply: ResolvedReply): unknown {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.text || null, refusal: null };
  if (reply.thinking) message.reasoning_content = reply.thinking;
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.args },
    }));
  }
  return {
    id: reply.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: reply.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: openaiStopReason(reply) }],
    usage: openaiUsage(reply.usage),
  };
}

const anthropicErrorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const defaultMessages: Record<number, string> = {
  400: 'Invalid request',
  401: 'invalid x-api-key',
  403: 'Your API key does not have permission to use the specified resource.',
  404: 'Not found',
  429: 'Rate limited',
  500: 'Internal server error',
  529: 'Overloaded',
};

/** An error body in the provider's own shape (the Responses API's is OpenAI's). */
export function errorBody(
  format: WireFormat,
  status: number,
  options: { message?: string; type?: string; code?: string | null },
): unknown {
  const message = options.message ?? defaultMessages[status] ?? `HTTP ${status}`;
  if (format === 'anthropic') {
    const type = options.type ?? anthropicErrorTypes[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    return { type: 'error', error: { type, message } };
  }
  const type = options.type ?? (status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error');
  const code =
    options.code !== undefined
      ? options.code
      : status === 401
        ? 'invalid_api_key'
        : status === 404
          ? 'model_not_found'
          : status === 429
            ? 'rate_limit_exceeded'
            : null;
  return { error: { message, type, param: null, code } };
}

/**
 * Why the strictest provider would refuse a request's turns, in its own words, or undefined.
 * Anthropic: the first message is the user's, roles alternate, every `tool_use` is answered
 * by a `tool_result` in the next message and every result answers a call in the message before.
 * OpenAI: after the system messages the user speaks first, user and assistant alternate (as
 * strict chat templates want), and an assistant's `tool_calls` are answered by the `tool`
 * messages right after it, and only there.
 */
export function turnOrderError(format: Exclude<WireFormat, 'responses'>, body: unknown): string | undefined {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  return format === 'anthropic' ? anthropicTurnError(messages) : openaiTurnError(messages);
}

type WireRecord = Record<string, unknown>;
const blocksOf = (message: WireRecord): WireRecord[] =>
  Array.isArray(message.content) ? (message.content as WireRecord[]) : [{ type: 'text', text: message.content }];

function anthropicTurnError(messages: WireRecord[]): string | undefined {
  if (messages[0]!.role !== 'user') return 'messages: first message must use the "user" role';
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const previous = messages[i - 1];
    if (previous && previous.role === message.role) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${String(message.role)}" roles in a row`;
    }
    const calls = blocksOf(message).flatMap((b) => (b.type === 'tool_use' ? [String(b.id)] : []));
    const answers = new Set(
      (messages[i + 1] ? blocksOf(messages[i + 1]!) : []).flatMap((b) =>
        b.type === 'tool_result' ? [String(b.tool_use_id)] : [],
      ),
    );
    const unanswered = calls.filter((id) => !answers.has(id));
    if (unanswered.length > 0) {
      return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
    const asked = new Set((previous ? blocksOf(previous) : []).flatMap((b) => (b.type === 'tool_use' ? [String(b.id)] : [])));
    const blocks = blocksOf(message);
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!;
      if (block.type === 'tool_result' && !asked.has(String(block.tool_use_id))) {
        return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
  }
  return undefined;
}

const ALTERNATE = 'Conversation roles must alternate user/assistant/user/assistant/...';
const unanswered = (ids: Set<string>) =>
  `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...ids].join(', ')}`;

function openaiTurnError(all: WireRecord[]): string | undefined {
  const messages = all.filter((m) => m.role !== 'system' && m.role !== 'developer');
  if (messages[0]?.role !== 'user') return ALTERNATE;
  /** The calls of the assistant message before (and its `tool` messages so far) not answered yet; undefined after a user's. */
  let waiting: Set<string> | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'tool') {
      if (!waiting?.delete(String(message.tool_call_id))) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
      continue;
    }
    if (waiting && waiting.size > 0) return unanswered(waiting);
    const previous = messages[i - 1];
    if (previous && previous.role === message.role) return ALTERNATE;
    const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as WireRecord[]) : [];
    waiting = message.role === 'assistant' ? new Set(calls.map((call) => String(call.id))) : undefined;
  }
  return waiting && waiting.size > 0 ? unanswered(waiting) : undefined;
}
