/**
 * Anthropic Messages API: normalized request → wire request (with prompt-cache
 * breakpoints), and the SSE stream → normalized StreamEvents. One attempt per call;
 * retries live in retry.ts. The SDK (anthropic-client.ts: the base client and Messages) is
 * imported on first use so that loading this module costs nothing (`outrider --version` must
 * not load an SDK).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { BackendConfig, ProviderBackend } from './backend.js';
import { anthropicThinking } from './effort.js';
import { abortError, StreamCutError } from './errors.js';
import { type BodyCaches, bodyCaches, headJson, messageJson, withMessages } from './request-body.js';
import { anthropicCallEffort } from './thinking-turn.js';
import { parseToolArgs } from './tool-args.js';
import type { ContentBlock, Effort, ImageBlock, Message, ModelRequest, StopReason, StreamEvent, Usage } from './types.js';
import { emptyUsage, INVALID_TOOL_NAME, ProviderError } from './types.js';

type WireParams = Anthropic.Messages.MessageCreateParamsStreaming;
type WireMessage = Anthropic.Messages.MessageParam;
type WireBlock = Anthropic.Messages.ContentBlockParam;
type WireEvent = Anthropic.Messages.RawMessageStreamEvent;

const EPHEMERAL = { type: 'ephemeral' } as const;

function toWireBlock(block: ContentBlock): WireBlock | undefined {
  switch (block.type) {
    case 'text':
      // The API rejects empty text blocks.
      return block.text === '' ? undefined : { type: 'text', text: block.text };
    case 'thinking':
      // Unsigned thinking, or OpenAI's reasoning (an item id, encrypted content), would be
      // rejected; the model does not need it back. Signed thinking goes back as written.
      if (!block.signature || block.itemId !== undefined) return undefined;
      if (block.redacted) return { type: 'redacted_thinking', data: block.signature };
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'image':
      return wireImage(block);
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input ?? {} };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.toolUseId,
        content: block.images?.length ? resultParts(block.content, block.images) : block.content,
        ...(block.isError ? { is_error: true } : {}),
      };
  }
}

function wireImage(block: ImageBlock): Anthropic.Messages.ImageBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: block.mediaType, data: block.data } };
}

/** A result with images: its text (the API rejects an empty text block), then its images. */
function resultParts(text: string, images: readonly ImageBlock[]): Anthropic.Messages.ToolResultBlockParam['content'] {
  return [...(text === '' ? [] : [{ type: 'text' as const, text }]), ...images.map(wireImage)];
}

/**
 * Normalized messages → Anthropic messages. The last cacheable block of the last
 * message carries a cache breakpoint, so each turn reads the whole previous prefix
 * from the cache and writes the new one.
 */
export function toAnthropicMessages(messages: Message[], converted?: WireCache): WireMessage[] {
  const wire = messages.map((message) => toWireMessage(message, converted));
  const last = wire.at(-1);
  if (last && Array.isArray(last.content)) {
    // A copy: the converted message is kept for later requests, where it is no longer last.
    const blocks = [...(last.content as WireBlock[])];
    for (let i = blocks.length - 1; i >= 0; i--) {
      const block = blocks[i]!;
      if (block.type === 'text' || block.type === 'image' || block.type === 'tool_use' || block.type === 'tool_result') {
        blocks[i] = { ...block, cache_control: EPHEMERAL };
        wire[wire.length - 1] = { ...last, content: blocks } as WireMessage;
        break;
      }
    }
  }
  return wire;
}

/** One message as the wire has it, without a cache breakpoint. */
function toWireMessage(message: Message, converted?: WireCache): WireMessage {
  const known = converted?.get(message);
  if (known) return known;
  const content = message.content.map(toWireBlock).filter((b): b is WireBlock => b !== undefined);
  if (content.length === 0) content.push({ type: 'text', text: '(empty)' });
  const made: WireMessage = { role: message.role, content };
  converted?.set(message, made);
  return made;
}

/**
 * Messages already converted, by identity: a message never changes once it is in the history,
 * so each conversion of a growing history converts only what is new. A WeakMap, so messages
 * compacted away are not kept. The backend keeps each message's JSON instead (request-body.ts);
 * the bench's in-process worker converts with one of these, serialization being outside its figure.
 */
export type WireCache = WeakMap<Message, WireMessage>;

/**
 * The request body as JSON text (request-body.ts), byte for byte what
 * JSON.stringify(toAnthropicParams(…)) makes: every message but the last serialized once,
 * without a breakpoint; the last, which carries it, on each call.
 */
export function anthropicRequestBody(request: ModelRequest, caches: BodyCaches): string {
  const effort = callEffort(request);
  const head = headJson(caches.head, request, effort, () =>
    JSON.stringify(
      toAnthropicParams({
        model: request.model,
        system: request.system,
        messages: [],
        tools: request.tools,
        maxTokens: request.maxTokens,
        ...(effort ? { effort } : {}),
      }),
    ),
  );
  const { messages } = request;
  // Converted again when its JSON is made: only the JSON is kept, not the wire form too.
  const pieces = messages.slice(0, -1).map((message) => messageJson(caches.json, message, wireMessageJson));
  if (messages.length > 0) pieces.push(JSON.stringify(toAnthropicMessages(messages.slice(-1))[0]));
  return withMessages(head, pieces);
}

function wireMessageJson(message: Message): string {
  return JSON.stringify(toWireMessage(message));
}

/** The request's effort, or none where thinking would break the open tool-use turn (thinking-turn.ts). */
function callEffort(request: ModelRequest, converted?: WireCache): Effort | undefined {
  return anthropicCallEffort(request, (message) => {
    const first = (toWireMessage(message, converted).content as WireBlock[])[0];
    return first?.type === 'thinking' || first?.type === 'redacted_thinking';
  });
}

/**
 * The full streaming request; cache breakpoints on the system prompt and the last tool. An
 * effort the model takes adds its thinking (effort.ts), and a budget's room to max_tokens.
 */
export function toAnthropicParams(request: ModelRequest, converted?: WireCache): WireParams {
  const thinking = anthropicThinking(request.model, callEffort(request, converted), request.maxTokens);
  const params: WireParams = {
    model: request.model,
    max_tokens: thinking?.max_tokens ?? request.maxTokens,
    messages: toAnthropicMessages(request.messages, converted),
    stream: true,
  };
  if (thinking) {
    params.thinking = thinking.thinking;
    if (thinking.output_config) params.output_config = thinking.output_config;
  }
  if (request.system !== '') params.system = [{ type: 'text', text: request.system, cache_control: EPHEMERAL }];
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool, i) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema as Anthropic.Messages.Tool.InputSchema,
      ...(i === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
    }));
  }
  return params;
}

const stopReasons: Record<string, StopReason> = {
  end_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  refusal: 'refusal',
  model_context_window_exceeded: 'max_tokens',
};

type Slot =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature?: string; redacted?: boolean }
  | { type: 'tool_use'; id: string; name: string; json: string; initial: unknown; toolIndex: number };

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Folds the SSE events of one message into StreamEvents and the final Message. */
export class AnthropicAssembler {
  private readonly slots = new Map<number, Slot>();
  private toolCount = 0;
  private stopReason: StopReason = 'other';
  private usage: Usage = emptyUsage();
  /** True once message_stop arrived; anything less is a cut stream. */
  done = false;

  *push(event: WireEvent): Generator<StreamEvent> {
    switch (event.type) {
      case 'message_start':
        this.readUsage(event.message.usage);
        break;
      case 'content_block_start':
        yield* this.start(event.index, event.content_block);
        break;
      case 'content_block_delta':
        yield* this.delta(event.index, event.delta);
        break;
      case 'content_block_stop': {
        const slot = this.slots.get(event.index);
        if (slot?.type === 'tool_use') yield { type: 'tool_call_end', index: slot.toolIndex };
        break;
      }
      case 'message_delta':
        if (event.delta.stop_reason) this.stopReason = stopReasons[event.delta.stop_reason] ?? 'other';
        this.readUsage(event.usage);
        break;
      case 'message_stop':
        this.done = true;
        break;
    }
  }

  private *start(index: number, block: Anthropic.Messages.RawContentBlockStartEvent['content_block']): Generator<StreamEvent> {
    // The wire is not trusted to match the SDK's types: a field may be missing (valid-output.ts settles the rest).
    if (block.type === 'text') {
      const text = stringOr(block.text);
      this.slots.set(index, { type: 'text', text });
      if (text) yield { type: 'text_delta', text };
    } else if (block.type === 'thinking') {
      const thinking = stringOr(block.thinking);
      this.slots.set(index, { type: 'thinking', thinking, signature: stringOr(block.signature) || undefined });
      if (thinking) yield { type: 'thinking_delta', text: thinking };
    } else if (block.type === 'redacted_thinking') {
      // Encrypted thinking: nothing to show, but sent back as it came, as thinking must be.
      const data = stringOr(block.data);
      if (data) this.slots.set(index, { type: 'thinking', thinking: '', signature: data, redacted: true });
    } else if (block.type === 'tool_use') {
      const toolIndex = this.toolCount++;
      const id = stringOr(block.id);
      const name = stringOr(block.name) || INVALID_TOOL_NAME;
      this.slots.set(index, { type: 'tool_use', id, name, json: '', initial: block.input, toolIndex });
      yield { type: 'tool_call_start', index: toolIndex, id, name };
    }
    // Server-side tool blocks have no normalized form; they are skipped.
  }

  private *delta(index: number, delta: Anthropic.Messages.RawContentBlockDelta): Generator<StreamEvent> {
    const slot = this.slots.get(index);
    if (!slot) return;
    if (delta.type === 'text_delta' && slot.type === 'text') {
      const text = stringOr(delta.text);
      if (!text) return;
      slot.text += text;
      yield { type: 'text_delta', text };
    } else if (delta.type === 'thinking_delta' && slot.type === 'thinking') {
      const thinking = stringOr(delta.thinking);
      if (!thinking) return;
      slot.thinking += thinking;
      yield { type: 'thinking_delta', text: thinking };
    } else if (delta.type === 'signature_delta' && slot.type === 'thinking') {
      slot.signature = (slot.signature ?? '') + stringOr(delta.signature);
    } else if (delta.type === 'input_json_delta' && slot.type === 'tool_use') {
      const json = stringOr(delta.partial_json);
      slot.json += json;
      if (json) yield { type: 'tool_call_delta', index: slot.toolIndex, argsDelta: json };
    }
  }

  private readUsage(wire: Anthropic.Messages.Usage | Anthropic.Messages.MessageDeltaUsage | null | undefined): void {
    if (!wire) return;
    const usage = wire as unknown as Record<string, unknown>;
    const num = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);
    this.usage = {
      input: num(usage.input_tokens, this.usage.input),
      output: num(usage.output_tokens, this.usage.output),
      cacheRead: num(usage.cache_read_input_tokens, this.usage.cacheRead),
      cacheWrite: num(usage.cache_creation_input_tokens, this.usage.cacheWrite),
    };
  }

  finish(): StreamEvent {
    const content: ContentBlock[] = [];
    for (const index of [...this.slots.keys()].sort((a, b) => a - b)) {
      const slot = this.slots.get(index)!;
      if (slot.type === 'text') {
        if (slot.text !== '') content.push({ type: 'text', text: slot.text });
      } else if (slot.type === 'thinking') {
        content.push({
          type: 'thinking',
          thinking: slot.thinking,
          ...(slot.signature ? { signature: slot.signature } : {}),
          ...(slot.redacted ? { redacted: true } : {}),
        });
      } else {
        const input = slot.json === '' && slot.initial !== undefined ? slot.initial : parseToolArgs(slot.json);
        content.push({ type: 'tool_use', id: slot.id, name: slot.name, input });
      }
    }
    return { type: 'message_end', message: { role: 'assistant', content }, stopReason: this.stopReason, usage: this.usage };
  }
}

/** The Anthropic backend; the SDK client is created on the first call. */
export function anthropicBackend(config: BackendConfig): ProviderBackend {
  let sdk: typeof import('./anthropic-client.js') | undefined;
  let client: Promise<import('./anthropic-client.js').MessagesClient> | undefined;

  const caches = bodyCaches();
  function getClient(): Promise<import('./anthropic-client.js').MessagesClient> {
    client ??= import('./anthropic-client.js').then((mod) => {
      sdk = mod;
      // maxRetries 0: our retry layer retries, and reports each retry as an event.
      return new mod.MessagesClient({
        apiKey: config.apiKey,
        baseURL: config.baseURL,
        maxRetries: 0,
        timeout: config.sdkTimeoutMs,
        logLevel: 'off',
        fetch: config.fetch as unknown as typeof fetch,
        // Nothing in outrider registers an OpenTelemetry tracer, so every span would be a no-op,
        // built and ended on each request all the same (and no trace context to propagate).
        openTelemetry: false,
      });
    });
    return client;
  }

  return {
    errorClasses: () => sdk,
    preload() {
      getClient().catch(() => {});
    },
    async *stream(request, signal, progress) {
      if (config.apiKey === '') throw new ProviderError('No Anthropic API key: set ANTHROPIC_API_KEY.');
      const anthropic = await getClient();
      // What messages.create does for a streaming request, with the body already JSON: the SDK
      // sends a string body as it is when the content type is given. (create would also scan
      // the whole history for the SDK's own helper markers on every call; outrider sets none.)
      const stream = await anthropic.post<AsyncIterable<WireEvent>>('/v1/messages', {
        body: anthropicRequestBody(request, caches),
        headers: { 'content-type': 'application/json' },
        stream: true,
        signal,
      });
      progress.responded();
      const assembler = new AnthropicAssembler();
      for await (const event of stream) {
        // The SDK drops `ping` events itself; this keeps them from counting if one ever gets through.
        if ((event.type as string) !== 'ping') progress.content();
        yield* assembler.push(event);
      }
      // The SDK ends the iteration quietly on abort; that is not a finished message.
      if (signal.aborted) throw abortError();
      if (!assembler.done) throw new StreamCutError('no message_stop');
      yield assembler.finish();
    },
  };
}
