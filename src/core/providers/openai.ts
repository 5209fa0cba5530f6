/**
 * OpenAI Chat Completions (and any server that speaks it: Ollama, vLLM, llama.cpp,
 * OpenRouter …): normalized request → chat messages, the chunk stream → normalized
 * StreamEvents. A model meant for the Responses API (the catalogue's `api`, or the
 * `openai.api` setting) goes there instead (openai-responses.ts). One attempt per call;
 * retries live in retry.ts. The SDK is imported on first use so that loading this module
 * costs nothing.
 */
import type OpenAI from 'openai';
import type { BackendConfig, ProviderBackend } from './backend.js';
import { openaiEffort } from './effort.js';
import { abortError, StreamCutError } from './errors.js';
import { type PartMaker, orderedParts, toolImageParts } from './content-parts.js';
import { openaiApiFor } from './models.js';
import { streamResponses } from './openai-responses.js';
import { type BodyCaches, bodyCaches, headJson, messageJson, withMessages } from './request-body.js';
import { parseToolArgs } from './tool-args.js';
import type { ContentBlock, Message, ModelRequest, StopReason, StreamEvent, Usage } from './types.js';
import { emptyUsage, INVALID_TOOL_NAME, ProviderError } from './types.js';

type WireMessage = OpenAI.ChatCompletionMessageParam;
type WireParams = OpenAI.ChatCompletionCreateParamsStreaming;
type WireChunk = OpenAI.ChatCompletionChunk;

/**
 * A message's text blocks as the one string a chat message holds. A user message's blocks are
 * separate pieces (a prompt, a hook's context, two prompts a crash left in a row): a blank line
 * between them. An assistant's are one reply the stream cut into blocks: joined as they came.
 */
function textOf(blocks: ContentBlock[], separator: '' | '\n\n'): string {
  return blocks
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join(separator);
}

/**
 * Normalized messages → chat messages. Tool results become `role: 'tool'` messages,
 * in order, ahead of any user text of the same message (the API wants them right
 * after the assistant's tool calls). Thinking is dropped: chat servers take none back.
 */
export function toOpenAIMessages(system: string, messages: Message[]): WireMessage[] {
  const wire: WireMessage[] = [];
  if (system !== '') wire.push({ role: 'system', content: system });
  for (const message of messages) wire.push(...toChatMessages(message));
  return wire;
}

/**
 * The request body as JSON text (request-body.ts): each history message's chat messages
 * serialized once, byte for byte what JSON.stringify(toOpenAIParams(…)) makes.
 */
export function openAIRequestBody(request: ModelRequest, tokenParam: TokenParam, caches: BodyCaches): string {
  const head = headJson(caches.head, request, `${tokenParam} ${request.effort ?? ''}`, () =>
    JSON.stringify(
      toOpenAIParams(
        {
          model: request.model,
          system: '',
          messages: [],
          tools: request.tools,
          maxTokens: request.maxTokens,
          ...(request.effort ? { effort: request.effort } : {}),
        },
        tokenParam,
      ),
    ),
  );
  // A map with a named serializer, not one loop calling a closure: V8 optimized that loop with
  // the whole conversion inlined, 20–45 ms of compiling on a helper thread, twice a run (a
  // deoptimization between): most of what a 100-step run cost more than with Anthropic.
  // A message can become no chat message at all (thinking only): no piece for it.
  const pieces = request.messages
    .map((message) => messageJson(caches.json, message, chatMessagesJson))
    .filter((json) => json !== '');
  if (request.system !== '') pieces.unshift(JSON.stringify({ role: 'system', content: request.system }));
  return withMessages(head, pieces);
}

/** One normalized message as the JSON of the chat messages it becomes, joined with commas. */
function chatMessagesJson(message: Message): string {
  return toChatMessages(message)
    .map((wire) => JSON.stringify(wire))
    .join(',');
}

/** One normalized message as the chat messages it becomes. */
function toChatMessages(message: Message): WireMessage[] {
  const text = textOf(message.content, message.role === 'user' ? '\n\n' : '');
  if (message.role === 'assistant') {
    const calls = message.content.flatMap((b) => (b.type === 'tool_use' ? [b] : []));
    return [
      {
        role: 'assistant',
        content: text === '' && calls.length > 0 ? null : text,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
              })),
            }
          : {}),
      },
    ];
  }
  const wire: WireMessage[] = [];
  for (const block of message.content) {
    if (block.type === 'tool_result') {
      // Chat messages have no error flag; the model still needs to know the call failed.
      const content = block.isError ? `Error: ${block.content}` : block.content;
      wire.push({ role: 'tool', tool_call_id: block.toolUseId, content });
    }
  }
  // The results' images go in one user message after the tool messages, with the user's own text and images.
  const resultImages = toolImageParts(message.content, CHAT_PARTS);
  if (resultImages.length > 0 || message.content.some((b) => b.type === 'image')) {
    wire.push({ role: 'user', content: [...resultImages, ...orderedParts(message.content, CHAT_PARTS)] });
  } else if (text !== '' || !message.content.some((b) => b.type === 'tool_result')) {
    wire.push({ role: 'user', content: text });
  }
  return wire;
}

/** Text and image parts as Chat Completions spells them (content-parts.ts). */
const CHAT_PARTS: PartMaker<OpenAI.ChatCompletionContentPart> = {
  text: (text) => ({ type: 'text', text }),
  image: (url) => ({ type: 'image_url', image_url: { url } }),
};

export type TokenParam = 'max_tokens' | 'max_completion_tokens';

/**
 * The streaming request; `max_tokens` is what OpenAI-compatible servers accept. An effort the
 * model takes (a reasoning model on Chat: `openai.api: "chat"`) goes as `reasoning_effort`.
 */
export function toOpenAIParams(request: ModelRequest, tokenParam: TokenParam = 'max_tokens'): WireParams {
  const params: WireParams = {
    model: request.model,
    messages: toOpenAIMessages(request.system, request.messages),
    stream: true,
    stream_options: { include_usage: true },
    [tokenParam]: request.maxTokens,
  };
  const effort = openaiEffort(request.model, request.effort);
  if (effort) params.reasoning_effort = effort;
  // Some compatible servers reject an empty tools array.
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
  }
  return params;
}

const finishReasons: Record<string, StopReason> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

interface CallSlot {
  index: number;
  id: string;
  name: string;
  args: string;
  started: boolean;
  ended: boolean;
}

/** Folds chat completion chunks into StreamEvents and the final Message. */
export class OpenAIAssembler {
  private text = '';
  private thinking = '';
  private readonly calls = new Map<number, CallSlot>();
  private finishReason: string | undefined;
  private usage: Usage = emptyUsage();

  /** True once a finish_reason arrived; a stream that ends earlier was cut. */
  get done(): boolean {
    return this.finishReason !== undefined;
  }

  *push(chunk: WireChunk): Generator<StreamEvent> {
    if (chunk.usage) this.readUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = (choice.delta ?? {}) as OpenAI.ChatCompletionChunk.Choice.Delta & {
      reasoning_content?: unknown;
      reasoning?: unknown;
    };
    // Reasoning servers (DeepSeek, Ollama, OpenRouter) stream thinking under one of these names.
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string' && reasoning !== '') {
      this.thinking += reasoning;
      yield { type: 'thinking_delta', text: reasoning };
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.text += delta.content;
      yield { type: 'text_delta', text: delta.content };
    }
    for (const call of delta.tool_calls ?? []) yield* this.toolDelta(call);
    if (choice.finish_reason) {
      this.finishReason = choice.finish_reason;
      yield* this.endCalls();
    }
  }

  private *toolDelta(call: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall): Generator<StreamEvent> {
    const key = call.index ?? 0;
    let slot = this.calls.get(key);
    if (!slot) {
      slot = { index: this.calls.size, id: '', name: '', args: '', started: false, ended: false };
      this.calls.set(key, slot);
    }
    if (typeof call.id === 'string' && call.id && !slot.id) slot.id = call.id;
    if (typeof call.function?.name === 'string' && call.function.name && !slot.name) slot.name = call.function.name;
    const fragment = typeof call.function?.arguments === 'string' ? call.function.arguments : '';
    slot.args += fragment;
    if (!slot.started) {
      if (!slot.name) return;
      yield* this.startCall(slot);
      if (slot.args !== '') yield { type: 'tool_call_delta', index: slot.index, argsDelta: slot.args };
    } else if (fragment !== '') {
      yield { type: 'tool_call_delta', index: slot.index, argsDelta: fragment };
    }
  }

  private *startCall(slot: CallSlot): Generator<StreamEvent> {
    slot.started = true;
    // A missing id or name is settled by the normalizer (valid-output.ts), which sees the whole history.
    slot.name ||= INVALID_TOOL_NAME;
    yield { type: 'tool_call_start', index: slot.index, id: slot.id, name: slot.name };
  }

  private *endCalls(): Generator<StreamEvent> {
    for (const slot of this.ordered()) {
      if (slot.ended) continue;
      if (!slot.started) {
        yield* this.startCall(slot);
        if (slot.args !== '') yield { type: 'tool_call_delta', index: slot.index, argsDelta: slot.args };
      }
      slot.ended = true;
      yield { type: 'tool_call_end', index: slot.index };
    }
  }

  private ordered(): CallSlot[] {
    return [...this.calls.values()].sort((a, b) => a.index - b.index);
  }

  private readUsage(usage: OpenAI.CompletionUsage): void {
    const prompt = usage.prompt_tokens ?? 0;
    const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
    this.usage = { input: Math.max(0, prompt - cached), output: usage.completion_tokens ?? 0, cacheRead: cached, cacheWrite: 0 };
  }

  *finish(): Generator<StreamEvent> {
    yield* this.endCalls();
    const content: ContentBlock[] = [];
    if (this.thinking !== '') content.push({ type: 'thinking', thinking: this.thinking });
    if (this.text !== '') content.push({ type: 'text', text: this.text });
    for (const slot of this.ordered()) {
      content.push({ type: 'tool_use', id: slot.id, name: slot.name, input: parseToolArgs(slot.args) });
    }
    let stopReason = finishReasons[this.finishReason ?? ''] ?? 'other';
    // Several compatible servers report "stop" even when the reply is tool calls.
    if (this.calls.size > 0 && stopReason === 'end_turn') stopReason = 'tool_use';
    yield { type: 'message_end', message: { role: 'assistant', content }, stopReason, usage: this.usage };
  }
}

const WANTS_COMPLETION_TOKENS = /max_completion_tokens/;

/** The OpenAI backend; the SDK client is created on the first call. */
export function openaiBackend(config: BackendConfig): ProviderBackend {
  let sdk: typeof import('openai') | undefined;
  let client: Promise<OpenAI> | undefined;
  // Newer OpenAI models refuse max_tokens; learned once per provider from the 400.
  let tokenParam: TokenParam = 'max_tokens';

  const caches = bodyCaches();
  // Each API's own: a message becomes other JSON on each.
  const responsesCaches = bodyCaches();
  function getClient(): Promise<OpenAI> {
    client ??= import('openai').then((mod) => {
      sdk = mod;
      // A local server needs no key, but the SDK insists on one.
      const apiKey = config.apiKey || 'no-key';
      // maxRetries 0: our retry layer retries, and reports each retry as an event.
      return new mod.default({
        apiKey,
        baseURL: config.baseURL,
        maxRetries: 0,
        timeout: config.sdkTimeoutMs,
        logLevel: 'off',
        fetch: config.fetch as unknown as typeof fetch,
      });
    });
    return client;
  }

  // What chat.completions.create does (a streaming POST), with the body already JSON: the SDK
  // sends a string body as it is when the content type is given.
  const send = (openai: OpenAI, request: ModelRequest, signal: AbortSignal) =>
    openai.post<AsyncIterable<WireChunk>>('/chat/completions', {
      body: openAIRequestBody(request, tokenParam, caches),
      headers: { 'content-type': 'application/json' },
      stream: true,
      signal,
    });

  async function open(openai: OpenAI, request: ModelRequest, signal: AbortSignal) {
    try {
      return await send(openai, request, signal);
    } catch (error) {
      const badRequest = sdk && error instanceof sdk.BadRequestError && WANTS_COMPLETION_TOKENS.test(error.message);
      if (!badRequest || tokenParam === 'max_completion_tokens') throw error;
      tokenParam = 'max_completion_tokens';
      return await send(openai, request, signal);
    }
  }

  return {
    errorClasses: () => sdk,
    preload() {
      getClient().catch(() => {});
    },
    async *stream(request, signal, progress) {
      if (config.apiKey === '' && !config.baseURL) {
        throw new ProviderError('No OpenAI API key: set OPENAI_API_KEY (or pass --base-url for a local server).');
      }
      const openai = await getClient();
      if (openaiApiFor(request.model, { api: config.openaiApi, baseURL: config.baseURL }) === 'responses') {
        yield* streamResponses(openai, sdk!, request, { signal, progress, caches: responsesCaches });
        return;
      }
      const stream = await open(openai, request, signal);
      progress.responded();
      const assembler = new OpenAIAssembler();
      for await (const chunk of stream) {
        // SSE comments (the usual keep-alive) never reach here; a chunk with neither choices nor usage is one too.
        if ((chunk.choices?.length ?? 0) > 0 || chunk.usage) progress.content();
        yield* assembler.push(chunk);
      }
      // The SDK ends the iteration quietly on abort; that is not a finished message.
      if (signal.aborted) throw abortError();
      if (!assembler.done) throw new StreamCutError('no finish_reason');
      yield* assembler.finish();
    },
  };
}
