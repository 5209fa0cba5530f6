/**
 * OpenAI's Responses API, the stream side: its events folded into normalized StreamEvents and
 * the final Message, in output order (reasoning items as thinking blocks that keep their id and
 * encrypted content, messages as text, function calls as tool calls). A failure the stream
 * reports (an `error` event, `response.failed`) is thrown as the SDK's APIError, so errors.ts
 * sorts it like any other; a stream that ends before `response.completed` was cut.
 */
import type OpenAI from 'openai';
import type { AttemptProgress } from './timeouts.js';
import { abortError, StreamCutError } from './errors.js';
import type { BodyCaches } from './request-body.js';
import { responsesRequestBody } from './responses-wire.js';
import { parseToolArgs } from './tool-args.js';
import type { ContentBlock, ModelRequest, StopReason, StreamEvent, Usage } from './types.js';
import { emptyUsage, INVALID_TOOL_NAME } from './types.js';

type WireEvent = OpenAI.Responses.ResponseStreamEvent;
type OutputItem = OpenAI.Responses.ResponseOutputItem;
type Loose = Record<string, unknown>;

type Slot =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; id: string; text: string; part: number; encrypted?: string }
  | { kind: 'call'; toolIndex: number; id: string; name: string; args: string; started: boolean; ended: boolean };

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Error codes a retry may get past; any other the request itself caused. */
const RETRYABLE_CODES = new Set(['server_error', 'rate_limit_exceeded', 'vector_store_timeout']);

/** Folds the events of one response into StreamEvents and the final Message. */
export class ResponsesAssembler {
  private readonly slots = new Map<number, Slot>();
  private toolCount = 0;
  private usage: Usage = emptyUsage();
  private stopReason: StopReason | undefined;
  private refused = false;
  /** True once response.completed (or response.incomplete) arrived; anything less is a cut stream. */
  done = false;

  /**
   * `failure` makes the error thrown for a failed response: the SDK's APIError, built by the caller
   * (the SDK loads lazily), with the body `{ type, code, message }`.
   */
  constructor(private readonly failure: (body: { type: string; code: string | null; message: string }) => Error) {}

  *push(event: WireEvent): Generator<StreamEvent> {
    // The wire is not trusted to match the SDK's types: fields are read loosely.
    const e = event as unknown as Loose;
    const at = num(e.output_index);
    switch (event.type) {
      case 'response.output_item.added':
        yield* this.added(at, event.item);
        break;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (event.type === 'response.refusal.delta') this.refused = true;
        yield* this.text(at, str(e.delta));
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        yield* this.thinking(at, str(e.delta), num(e.summary_index ?? e.content_index));
        break;
      case 'response.function_call_arguments.delta':
        yield* this.args(at, str(e.delta));
        break;
      case 'response.function_call_arguments.done': {
        const slot = this.slots.get(at);
        // Only when no delta came: the arguments whole.
        if (slot?.kind === 'call' && slot.args === '') yield* this.args(at, str(e.arguments));
        break;
      }
      case 'response.output_item.done':
        yield* this.itemDone(at, event.item);
        break;
      case 'response.completed':
      case 'response.incomplete':
        this.finishWith(e.response as Loose | undefined, event.type === 'response.incomplete');
        break;
      case 'response.failed': {
        const error = ((e.response as Loose | undefined)?.error ?? {}) as Loose;
        throw this.error(error.code, error.message);
      }
      case 'error':
        throw this.error(e.code, e.message);
    }
  }

  private error(code: unknown, message: unknown): Error {
    const known = typeof code === 'string' ? code : null;
    // A rate limit or a server's trouble is retried; anything else the request caused is not.
    const type = known === null || RETRYABLE_CODES.has(known) ? 'server_error' : 'invalid_request_error';
    return this.failure({ type, code: known, message: str(message) || 'the response failed' });
  }

  private *added(at: number, item: OutputItem | undefined): Generator<StreamEvent> {
    const raw = (item ?? {}) as Loose;
    if (raw.type === 'function_call') {
      const slot = this.call(at);
      slot.id ||= str(raw.call_id);
      slot.name ||= str(raw.name);
      yield* this.args(at, str(raw.arguments));
      if (!slot.started && slot.name) yield* this.startCall(slot);
    } else if (raw.type === 'reasoning' && !this.slots.has(at)) {
      this.slots.set(at, { kind: 'reasoning', id: str(raw.id), text: '', part: 0 });
    } else if (raw.type === 'message' && !this.slots.has(at)) {
      this.slots.set(at, { kind: 'text', text: '' });
    }
  }

  private call(at: number): Extract<Slot, { kind: 'call' }> {
    const known = this.slots.get(at);
    if (known?.kind === 'call') return known;
    const slot: Extract<Slot, { kind: 'call' }> = {
      kind: 'call',
      toolIndex: this.toolCount++,
      id: '',
      name: '',
      args: '',
      started: false,
      ended: false,
    };
    this.slots.set(at, slot);
    return slot;
  }

  private *text(at: number, delta: string): Generator<StreamEvent> {
    if (delta === '') return;
    let slot = this.slots.get(at);
    if (slot === undefined) this.slots.set(at, (slot = { kind: 'text', text: '' }));
    if (slot.kind !== 'text') return;
    slot.text += delta;
    yield { type: 'text_delta', text: delta };
  }

  private *thinking(at: number, delta: string, part: number): Generator<StreamEvent> {
    if (delta === '') return;
    let slot = this.slots.get(at);
    if (slot === undefined) this.slots.set(at, (slot = { kind: 'reasoning', id: '', text: '', part }));
    if (slot.kind !== 'reasoning') return;
    // Summary parts are paragraphs of their own.
    const text = slot.text !== '' && part !== slot.part ? `\n\n${delta}` : delta;
    slot.part = part;
    slot.text += text;
    yield { type: 'thinking_delta', text };
  }

  private *args(at: number, delta: string): Generator<StreamEvent> {
    if (this.slots.has(at) && this.slots.get(at)!.kind !== 'call') return;
    const slot = this.call(at);
    if (delta === '') return;
    slot.args += delta;
    if (slot.started) yield { type: 'tool_call_delta', index: slot.toolIndex, argsDelta: delta };
  }

  private *startCall(slot: Extract<Slot, { kind: 'call' }>): Generator<StreamEvent> {
    slot.started = true;
    // A missing id or name is settled by the normalizer (valid-output.ts), which sees the whole history.
    slot.name ||= INVALID_TOOL_NAME;
    yield { type: 'tool_call_start', index: slot.toolIndex, id: slot.id, name: slot.name };
    if (slot.args !== '') yield { type: 'tool_call_delta', index: slot.toolIndex, argsDelta: slot.args };
  }

  private *endCall(slot: Extract<Slot, { kind: 'call' }>): Generator<StreamEvent> {
    if (slot.ended) return;
    if (!slot.started) yield* this.startCall(slot);
    slot.ended = true;
    yield { type: 'tool_call_end', index: slot.toolIndex };
  }

  /** An item whole: what its deltas left out is taken from it (a server may send no deltas at all). */
  private *itemDone(at: number, item: OutputItem | undefined): Generator<StreamEvent> {
    const raw = (item ?? {}) as Loose;
    if (raw.type === 'function_call') {
      const slot = this.call(at);
      slot.id ||= str(raw.call_id);
      slot.name ||= str(raw.name);
      if (slot.args === '') yield* this.args(at, str(raw.arguments));
      yield* this.endCall(slot);
    } else if (raw.type === 'reasoning') {
      let slot = this.slots.get(at);
      if (slot?.kind !== 'reasoning') this.slots.set(at, (slot = { kind: 'reasoning', id: '', text: '', part: 0 }));
      slot.id ||= str(raw.id);
      if (typeof raw.encrypted_content === 'string' && raw.encrypted_content !== '') slot.encrypted = raw.encrypted_content;
      if (slot.text === '') yield* this.thinking(at, partsText(raw.summary), 0);
    } else if (raw.type === 'message') {
      const slot = this.slots.get(at);
      if (slot === undefined || (slot.kind === 'text' && slot.text === '')) yield* this.text(at, partsText(raw.content));
    }
  }

  private finishWith(response: Loose | undefined, incomplete: boolean): void {
    this.done = true;
    const usage = (response?.usage ?? undefined) as Loose | undefined;
    if (usage) {
      const cached = num((usage.input_tokens_details as Loose | undefined)?.cached_tokens);
      // Reasoning tokens are part of output_tokens, and billed as output.
      this.usage = {
        input: Math.max(0, num(usage.input_tokens) - cached),
        output: num(usage.output_tokens),
        cacheRead: cached,
        cacheWrite: 0,
      };
    }
    if (incomplete) {
      const reason = (response?.incomplete_details as Loose | undefined)?.reason;
      this.stopReason = reason === 'content_filter' ? 'refusal' : reason === 'max_output_tokens' ? 'max_tokens' : 'other';
    }
  }

  /** Every call still open ended, then `message_end` with the blocks in output order. */
  *finish(): Generator<StreamEvent> {
    const order = [...this.slots.keys()].sort((a, b) => a - b);
    const content: ContentBlock[] = [];
    let calls = 0;
    for (const at of order) {
      const slot = this.slots.get(at)!;
      if (slot.kind === 'call') {
        yield* this.endCall(slot);
        content.push({ type: 'tool_use', id: slot.id, name: slot.name, input: parseToolArgs(slot.args) });
        calls += 1;
      } else if (slot.kind === 'text') {
        if (slot.text !== '') content.push({ type: 'text', text: slot.text });
      } else if (slot.encrypted && slot.id) {
        // Sent back on the next request: the server keeps nothing (store: false).
        content.push({ type: 'thinking', thinking: slot.text, signature: slot.encrypted, itemId: slot.id });
      } else if (slot.text !== '') {
        content.push({ type: 'thinking', thinking: slot.text });
      }
    }
    const stopReason = this.stopReason ?? (this.refused ? 'refusal' : calls > 0 ? 'tool_use' : 'end_turn');
    yield { type: 'message_end', message: { role: 'assistant', content }, stopReason, usage: this.usage };
  }
}

/** The text of a message's content parts or a reasoning item's summary parts, joined. */
function partsText(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts
    .map((part) => str((part as Loose | null)?.text) || str((part as Loose | null)?.refusal))
    .filter(Boolean)
    .join('\n\n');
}

/**
 * One attempt on /responses: what responses.create does for a streaming request, with the body
 * already JSON (the SDK sends a string body as it is when the content type is given).
 */
export async function* streamResponses(
  openai: OpenAI,
  sdk: typeof import('openai'),
  request: ModelRequest,
  parts: { signal: AbortSignal; progress: AttemptProgress; caches: BodyCaches },
): AsyncGenerator<StreamEvent> {
  const { signal, progress } = parts;
  const stream = await openai.post<AsyncIterable<WireEvent>>('/responses', {
    body: responsesRequestBody(request, parts.caches),
    headers: { 'content-type': 'application/json' },
    stream: true,
    signal,
  });
  progress.responded();
  const assembler = new ResponsesAssembler((body) => new sdk.APIError(undefined, body, body.message, undefined));
  for await (const event of stream) {
    progress.content();
    yield* assembler.push(event);
  }
  // The SDK ends the iteration quietly on abort; that is not a finished message.
  if (signal.aborted) throw abortError();
  if (!assembler.done) throw new StreamCutError('no response.completed');
  yield* assembler.finish();
}
