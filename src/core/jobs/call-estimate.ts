import { IMAGE_TOKENS } from '../providers/image-block.js';
import { MAX_SENT_IMAGES } from '../providers/image-window.js';
import type { Message, ModelRequest, ToolSchema, Usage } from '../providers/types.js';

/**
 * Bytes of request JSON per input token. A cheap stand-in for the provider's tokenizer (the
 * compaction estimate counts characters the same way): English prose and code run 3.5 to 4.5
 * bytes a token, and a CJK character (3 bytes) is about one token, so a text in such a script
 * is under-counted. It only has to be cheap and close: the answer's usage is what is counted.
 */
const BYTES_PER_TOKEN = 4;

/** The most one model call can use: its input as estimated from the request, and its whole `max_tokens` as output. */
export interface CallEstimate {
  input: number;
  output: number;
}

/**
 * Sizes a job's requests before they are made: every message's JSON is measured once (by
 * identity: a message never changes once in a history), the tool list once per list.
 */
export class RequestSizer {
  private readonly messages = new WeakMap<Message, { bytes: number; images: number }>();
  private readonly tools = new WeakMap<readonly ToolSchema[], number>();

  estimate(request: ModelRequest): CallEstimate {
    let bytes = Buffer.byteLength(request.system) + this.toolBytes(request.tools);
    let images = 0;
    for (const message of request.messages) {
      const size = this.messageSize(message);
      bytes += size.bytes;
      images += size.images;
    }
    // A request sends the newest MAX_SENT_IMAGES images only (image-window.ts).
    bytes += Math.min(images, MAX_SENT_IMAGES) * IMAGE_BYTES;
    return { input: Math.ceil(bytes / BYTES_PER_TOKEN), output: request.maxTokens };
  }

  private messageSize(message: Message): { bytes: number; images: number } {
    let size = this.messages.get(message);
    if (size === undefined) {
      size = { bytes: Buffer.byteLength(JSON.stringify(message.content, withoutImageData)), images: imageCount(message) };
      this.messages.set(message, size);
    }
    return size;
  }

  private toolBytes(tools: readonly ToolSchema[]): number {
    let bytes = this.tools.get(tools);
    if (bytes === undefined) {
      bytes = Buffer.byteLength(JSON.stringify(tools));
      this.tools.set(tools, bytes);
    }
    return bytes;
  }
}

/** What an image counts for, as the compaction estimate counts it: its pixels are charged, not its base64. */
const IMAGE_BYTES = IMAGE_TOKENS * BYTES_PER_TOKEN;

/** A JSON.stringify replacer that leaves out an image's base64. */
function withoutImageData(this: unknown, key: string, value: unknown): unknown {
  return key === 'data' && (this as { type?: unknown }).type === 'image' ? '' : value;
}

function imageCount(message: Message): number {
  let count = 0;
  for (const block of message.content) {
    if (block.type === 'image') count += 1;
    else if (block.type === 'tool_result') count += block.images?.length ?? 0;
  }
  return count;
}

/** Every token of an estimate. */
export function estimateTokens(estimate: CallEstimate): number {
  return estimate.input + estimate.output;
}

/**
 * The estimate as usage to price: all input at the uncached input price (a cache write costs a
 * little more, a cache read far less), all output at the output price.
 */
export function estimateUsage(estimate: CallEstimate): Usage {
  return { input: estimate.input, output: estimate.output, cacheRead: 0, cacheWrite: 0 };
}
