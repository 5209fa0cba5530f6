/**
 * Tool calling for endpoints without native tools: the tools are described in the
 * system prompt, the model writes `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
 * blocks in plain text, and this wrapper turns them into ordinary tool_use blocks. The
 * rest of the agent never knows the difference.
 */
import { INVALID_JSON_KEY, invalidToolArgs } from './tool-args.js';
import {
  type ContentBlock,
  INVALID_TOOL_NAME,
  type Message,
  type ModelRequest,
  type StreamEvent,
  type StreamFn,
  type ToolSchema,
} from './types.js';

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';

/** Name given to a call whose block names no tool. */
export const INVALID_TOOL_CALL = INVALID_TOOL_NAME;

/**
 * The block appended to the system prompt. Built only from the tool list, so the
 * system bytes stay identical from turn to turn and the prompt cache keeps hitting.
 */
export function describeTools(tools: ToolSchema[]): string {
  if (tools.length === 0) return '';
  const lines = [
    '# Tools',
    "To call a tool, write one block per call, exactly like this (the arguments are JSON matching the tool's parameters):",
    `${OPEN}{"name": "tool_name", "arguments": {"param": "value"}}${CLOSE}`,
    'You may write several blocks in one reply. After your calls, stop and wait: the results come back in the next message as <tool_result name="tool_name">…</tool_result> blocks. When no tool is needed, just answer.',
    '',
    'Available tools:',
  ];
  for (const tool of tools) {
    lines.push(`## ${tool.name}`, tool.description, `Parameters: ${JSON.stringify(tool.inputSchema)}`, '');
  }
  return lines.join('\n').trimEnd();
}

function callText(name: string, input: unknown): string {
  const raw = invalidToolArgs(input);
  // Show the model exactly what it wrote last time, not our wrapper around it.
  if (raw !== undefined) return `${OPEN}${raw}${CLOSE}`;
  return `${OPEN}${JSON.stringify({ name, arguments: input ?? {} })}${CLOSE}`;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** History → text-only messages: tool_use becomes a <tool_call> block, tool_result a <tool_result> block. */
export function toTextToolMessages(messages: Message[]): Message[] {
  const names = new Map<string, string>();
  return messages.map((message) => {
    const content: ContentBlock[] = [];
    const texts: string[] = [];
    const flush = (): void => {
      if (texts.length > 0) content.push({ type: 'text', text: texts.join(message.role === 'assistant' ? '\n' : '\n\n') });
      texts.length = 0;
    };
    for (const block of message.content) {
      if (block.type === 'text') texts.push(block.text);
      else if (block.type === 'tool_use') {
        names.set(block.id, block.name);
        texts.push(callText(block.name, block.input));
      } else if (block.type === 'tool_result') {
        const name = escapeAttribute(names.get(block.toolUseId) ?? 'unknown');
        const error = block.isError ? ' error="true"' : '';
        texts.push(`<tool_result name="${name}"${error}>\n${block.content}\n</tool_result>`);
        // A result's images (read_file of a screenshot) follow its text, as a user's own would.
        if (block.images?.length) {
          flush();
          content.push(...block.images);
        }
      } else {
        flush();
        content.push(block);
      }
    }
    flush();
    return { role: message.role, content };
  });
}

/** The request the inner provider sees: tools in the system text, none native. */
export function toTextToolRequest(request: ModelRequest): ModelRequest {
  const block = describeTools(request.tools);
  return {
    ...request,
    system: block === '' ? request.system : request.system === '' ? block : `${request.system}\n\n${block}`,
    tools: [],
    messages: toTextToolMessages(request.messages),
  };
}

export type Segment = { kind: 'text'; text: string } | { kind: 'call'; raw: string };

/** Length of the longest suffix of `text` that is a prefix of `tag`: text that may yet become the tag. */
function partialTagLength(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(tag.slice(0, n))) return n;
  }
  return 0;
}

/**
 * Splits streamed text into plain text and <tool_call> bodies. Text that might be the
 * start of a tag is held back until the next delta settles it.
 */
export class ToolCallScanner {
  private buffer = '';
  private inside = false;

  push(delta: string): Segment[] {
    this.buffer += delta;
    const out: Segment[] = [];
    for (;;) {
      if (this.inside) {
        const end = this.buffer.indexOf(CLOSE);
        if (end < 0) break;
        out.push({ kind: 'call', raw: this.buffer.slice(0, end) });
        this.buffer = this.buffer.slice(end + CLOSE.length);
        this.inside = false;
        continue;
      }
      const start = this.buffer.indexOf(OPEN);
      if (start >= 0) {
        if (start > 0) out.push({ kind: 'text', text: this.buffer.slice(0, start) });
        this.buffer = this.buffer.slice(start + OPEN.length);
        this.inside = true;
        continue;
      }
      const hold = partialTagLength(this.buffer, OPEN);
      const ready = this.buffer.slice(0, this.buffer.length - hold);
      if (ready !== '') out.push({ kind: 'text', text: ready });
      this.buffer = this.buffer.slice(this.buffer.length - hold);
      break;
    }
    return out;
  }

  /** The rest at the end of the stream; an unclosed block still counts as a call. */
  finish(): Segment[] {
    const rest = this.buffer;
    this.buffer = '';
    if (this.inside) {
      this.inside = false;
      return [{ kind: 'call', raw: rest }];
    }
    return rest === '' ? [] : [{ kind: 'text', text: rest }];
  }
}

/** A <tool_call> body → name and input; anything unusable keeps the raw text for the model to see. */
export function parseToolCall(raw: string): { name: string; input: unknown } {
  const body = raw
    .trim()
    .replace(/^```(?:json)?\s*/, '')
    .replace(/\s*```$/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const name = /"name"\s*:\s*"([^"]+)"/.exec(body)?.[1];
    return { name: name ?? INVALID_TOOL_CALL, input: { [INVALID_JSON_KEY]: raw } };
  }
  const call = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  if (typeof call.name !== 'string' || call.name === '') return { name: INVALID_TOOL_CALL, input: { [INVALID_JSON_KEY]: raw } };
  let input: unknown = call.arguments ?? call.parameters ?? call.input ?? {};
  // Some models encode the arguments a second time, as a JSON string.
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input) as unknown;
    } catch {
      return { name: call.name, input: { [INVALID_JSON_KEY]: input } };
    }
  }
  return { name: call.name, input };
}

/** Builds the message of one attempt from scanner segments, emitting events as it goes. */
class TextToolAssembler {
  private readonly blocks: ContentBlock[] = [];
  private calls = 0;

  constructor(private readonly idPrefix: string) {}

  *take(segments: Segment[]): Generator<StreamEvent> {
    for (const segment of segments) {
      if (segment.kind === 'text') {
        const last = this.blocks.at(-1);
        if (last?.type === 'text') last.text += segment.text;
        else this.blocks.push({ type: 'text', text: segment.text });
        yield { type: 'text_delta', text: segment.text };
        continue;
      }
      const index = this.calls++;
      const id = `${this.idPrefix}_${index}`;
      const { name, input } = parseToolCall(segment.raw);
      this.blocks.push({ type: 'tool_use', id, name, input });
      yield { type: 'tool_call_start', index, id, name };
      yield { type: 'tool_call_delta', index, argsDelta: JSON.stringify(input) };
      yield { type: 'tool_call_end', index };
    }
  }

  finish(end: Extract<StreamEvent, { type: 'message_end' }>): StreamEvent {
    const thinking = end.message.content.filter((b) => b.type === 'thinking');
    const parsed = this.blocks.filter((b) => b.type !== 'text' || b.text.trim() !== '');
    return {
      type: 'message_end',
      message: { role: 'assistant', content: [...thinking, ...parsed] },
      stopReason: this.calls > 0 ? 'tool_use' : end.stopReason,
      usage: end.usage,
    };
  }
}

/**
 * Wraps a provider stream so that tools work through plain text. Call ids are
 * `text_<assistant turn>_<n>`: deterministic, and unique across the conversation.
 */
export function withTextTools(inner: StreamFn): StreamFn {
  return async function* textToolStream(request, signal) {
    const turn = request.messages.filter((m) => m.role === 'assistant').length;
    const idPrefix = `text_${turn}`;
    let scanner = new ToolCallScanner();
    let assembler = new TextToolAssembler(idPrefix);
    for await (const event of inner(toTextToolRequest(request), signal)) {
      switch (event.type) {
        case 'text_delta':
          yield* assembler.take(scanner.push(event.text));
          break;
        case 'retry':
          // The message starts over: so does the parse.
          scanner = new ToolCallScanner();
          assembler = new TextToolAssembler(idPrefix);
          yield event;
          break;
        case 'message_end':
          yield* assembler.take(scanner.finish());
          yield assembler.finish(event);
          break;
        case 'thinking_delta':
        case 'rate_limit':
          yield event;
          break;
        default:
          // Native tool events cannot occur: the inner request carries no tools.
          break;
      }
    }
  };
}
