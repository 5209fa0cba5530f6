/**
 * What a valid history is, and how to make one out of whatever a model or a transcript
 * file handed us. Content blocks are checked with zod; empty ones are dropped; tool call ids
 * that are missing, malformed or already used are replaced by fresh ones both providers
 * accept; a call without a usable tool name is renamed so the loop answers it with an error;
 * an image is kept only when a provider would take it.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import type { ImageMediaType } from '../platform/image-bytes.js';
import { isSendableImage } from './image-block.js';
import {
  type ContentBlock,
  type ImageBlock,
  INVALID_JSON_KEY,
  INVALID_TOOL_NAME,
  type Message,
  type ThinkingBlock,
  type ToolResultBlock,
  type ToolUseBlock,
} from './types.js';

/** Ids both APIs accept: Anthropic's pattern, within OpenAI's 40 characters. */
export const VALID_TOOL_ID = /^[a-zA-Z0-9_-]{1,40}$/;
/** Tool names both APIs accept. */
export const VALID_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A new id no model wrote: `call_` and 16 random URL-safe characters. */
export function freshToolId(): string {
  return `call_${randomBytes(12).toString('base64url')}`;
}

/** Hands out tool call ids: a model's own when it is valid and unused, else a fresh one. */
export class ToolIds {
  private readonly taken: Set<string>;

  constructor(taken: Iterable<string> = []) {
    this.taken = new Set(taken);
  }

  /** The id to use for a call the model gave `raw`; records it as used. */
  assign(raw: unknown): string {
    let id = typeof raw === 'string' && VALID_TOOL_ID.test(raw) && !this.taken.has(raw) ? raw : freshToolId();
    while (this.taken.has(id)) id = freshToolId();
    this.taken.add(id);
    return id;
  }

  /** Every tool call id in a history, for a `ToolIds` that must not repeat them (asked before every model call: no array per message). */
  static of(messages: readonly Message[]): ToolIds {
    const ids = new ToolIds();
    for (const message of messages) for (const block of message.content) if (block.type === 'tool_use') ids.taken.add(block.id);
    return ids;
  }
}

const textSchema = z.object({ type: z.literal('text'), text: z.string() });
const thinkingSchema = z.object({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().optional().catch(undefined),
  redacted: z.boolean().optional().catch(undefined),
  itemId: z.string().optional().catch(undefined),
});
// Fields a source may leave out or get wrong are read as unknown and settled below.
const toolUseSchema = z.object({
  type: z.literal('tool_use'),
  id: z.unknown().optional(),
  name: z.unknown().optional(),
  input: z.unknown().optional(),
});
const toolResultSchema = z.object({
  type: z.literal('tool_result'),
  toolUseId: z.unknown().optional(),
  /** The wire's spelling, as a hand-edited transcript may carry it. */
  tool_use_id: z.unknown().optional(),
  content: z.unknown().optional(),
  isError: z.boolean().optional().catch(undefined),
  images: z.unknown().optional(),
});
const imageSchema = z.object({ type: z.literal('image'), mediaType: z.string(), data: z.string() });
const blockSchema = z.discriminatedUnion('type', [textSchema, thinkingSchema, imageSchema, toolUseSchema, toolResultSchema]);

/** A tool call before its id is settled: `rawId` is whatever the source said. */
export type DraftToolUse = Omit<ToolUseBlock, 'id'> & { rawId: unknown };
/** A tool result before it is paired: `rawId` is the call id it names. */
export type DraftToolResult = Omit<ToolResultBlock, 'toolUseId'> & { rawId: unknown };
export type DraftBlock = Exclude<ContentBlock, ToolUseBlock | ToolResultBlock> | DraftToolUse | DraftToolResult;

/** One block made valid, or undefined when nothing usable is left of it (or it was not a block). */
export function draftBlock(raw: unknown): DraftBlock | undefined {
  const parsed = blockSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const block = parsed.data;
  switch (block.type) {
    case 'text':
      return block.text === '' ? undefined : { type: 'text', text: block.text };
    case 'thinking': {
      if (block.thinking === '' && !block.signature) return undefined;
      const thinking: ThinkingBlock = { type: 'thinking', thinking: block.thinking };
      if (!block.signature) return thinking;
      // Redacted thinking and OpenAI's reasoning items are their signature: kept only with it.
      return {
        ...thinking,
        signature: block.signature,
        ...(block.redacted ? { redacted: true } : {}),
        ...(block.itemId ? { itemId: block.itemId } : {}),
      };
    }
    case 'image':
      return sendableImage(block);
    case 'tool_use':
      return { type: 'tool_use', rawId: block.id, name: toolName(block.name), input: toolInput(block.input) };
    case 'tool_result': {
      const images = Array.isArray(block.images) ? block.images.flatMap((raw) => sendableImage(raw) ?? []) : [];
      return {
        type: 'tool_result',
        rawId: block.toolUseId ?? block.tool_use_id,
        content: resultText(block.content),
        ...(block.isError ? { isError: true } : {}),
        ...(images.length > 0 ? { images } : {}),
      };
    }
  }
}

/** An image block as a provider takes it, or undefined. Checked as a sender's image is: one a provider would refuse would fail every later request. */
function sendableImage(raw: unknown): ImageBlock | undefined {
  const parsed = imageSchema.safeParse(raw);
  if (!parsed.success || !isSendableImage(parsed.data)) return undefined;
  return { type: 'image', mediaType: parsed.data.mediaType as ImageMediaType, data: parsed.data.data };
}

/** A usable tool name, or the name the loop answers with "no valid tool name". */
function toolName(raw: unknown): string {
  return typeof raw === 'string' && VALID_TOOL_NAME.test(raw) ? raw : INVALID_TOOL_NAME;
}

/** Tool input must be an object: anything else is kept, as text, for the model to see. */
function toolInput(raw: unknown): unknown {
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'object' && !Array.isArray(raw)) return raw;
  return { [INVALID_JSON_KEY]: JSON.stringify(raw) };
}

/** A result's content as plain text, whatever shape it was written in. */
function resultText(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw)) {
    const texts = raw.flatMap((part) => {
      const text = textSchema.safeParse(part);
      return text.success ? [text.data.text] : [];
    });
    if (texts.length === raw.length) return texts.join('\n');
  }
  return raw === undefined || raw === null ? '' : JSON.stringify(raw);
}

/**
 * A model's reply made valid: only text, thinking and tool calls, none empty; every call with
 * an id from `ids` (`assigned` gives the ids already handed out for the calls' positions).
 */
export function normalizeAssistant(raw: unknown, ids: ToolIds, assigned: ReadonlyMap<number, string> = new Map()): Message {
  const content: unknown = typeof raw === 'object' && raw !== null ? (raw as { content?: unknown }).content : undefined;
  const out: ContentBlock[] = [];
  let calls = 0;
  for (const item of Array.isArray(content) ? content : []) {
    const block = draftBlock(item);
    // Images are the user's: a reply never carries one.
    if (!block || block.type === 'tool_result' || block.type === 'image') continue;
    if (block.type !== 'tool_use') {
      out.push(block);
      continue;
    }
    const { rawId, ...call } = block;
    out.push({ ...call, id: assigned.get(calls) ?? ids.assign(rawId) });
    calls++;
  }
  return { role: 'assistant', content: out };
}
