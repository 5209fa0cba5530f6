/**
 * The images one request carries. Every image in the history (a user's, a tool result's) is
 * sent again with every later call, so a session that looks at many screenshots would in the
 * end ask more than the APIs take: Anthropic takes 100 images a request, but past 20 only
 * ones of at most 2000×2000 px, and a body of at most 32 MB; OpenAI's limits are alike.
 * Compaction cannot help (it counts an image at a fixed cost). So a request sends the newest
 * images only, at most MAX_SENT_IMAGES and MAX_SENT_IMAGE_BASE64 of base64 in all, and an older
 * one is named instead. The history keeps every image (the conversation owns it and the
 * transcript holds it): only the request is trimmed.
 */
import { imageLabel, imageSummary } from './image-block.js';
import type { ContentBlock, ImageBlock, Message, StreamFn, ToolResultBlock } from './types.js';

/** The most images one request sends: Anthropic takes larger ones up to this count. */
export const MAX_SENT_IMAGES = 20;
/** The most base64 of images one request sends, under Anthropic's 32 MB body with room for the rest. */
export const MAX_SENT_IMAGE_BASE64 = 20 * 1024 * 1024;
/**
 * Past MAX_SENT_IMAGES, images are left out this many at a time (11 to 20 are sent): each cut
 * changes the message it falls in, and with it every prompt-cache prefix after it, so it moves
 * once every ten new images rather than with each one.
 */
export const IMAGE_DROP_STEP = 10;
/** What follows an image's label where the image is left out. */
export const NOT_SENT_AGAIN = ' — not sent again: newer images fill the request';

/** How many images, and how much of their base64, one request may carry; past the count, how many go at a time. */
export interface ImageLimits {
  maxImages: number;
  maxBase64: number;
  dropStep?: number;
}

export const SENT_IMAGE_LIMITS: Readonly<ImageLimits> = Object.freeze({
  maxImages: MAX_SENT_IMAGES,
  maxBase64: MAX_SENT_IMAGE_BASE64,
  dropStep: IMAGE_DROP_STEP,
});

/**
 * Each trimmed message made so far, by the history message it stands for, with how many of its
 * images it leaves out: the same cut gives back the same object, so a backend serializes it once
 * (request-body.ts caches each message's JSON by identity).
 */
export type TrimmedCopies = WeakMap<Message, { dropped: number; note: string; copy: Message }>;

/**
 * `messages` with only the newest images that fit `limits` (counted from the end, a tool
 * result's images at the result's place): the older ones replaced by their label (a user's) or
 * left out with a note after the result's text (a tool's). The same array when every image
 * fits; otherwise a copy in which only the messages that lose an image are new objects.
 * Nothing given is changed.
 *
 * The window is contiguous and moves only when an image would go over a limit, so a history
 * under the limits is sent as it is and the prompt cache's prefix stays whole. Past the count,
 * the oldest images go `dropStep` at a time, so the cut (and the cache after it) moves once per
 * that many new images; past the size, each newer image moves it (a rarer case: 20 MB).
 */
export function imageWindow(
  messages: Message[],
  options: { limits?: ImageLimits; copies?: TrimmedCopies; note?: string } = {},
): Message[] {
  const { maxBase64, ...limits } = options.limits ?? SENT_IMAGE_LIMITS;
  const maxImages = countToSend(messages, limits);
  let kept = 0;
  let bytes = 0;
  let full = false;
  let out: Message[] | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    const sizes = imageSizes(message.content);
    if (sizes.length === 0) continue;
    let dropped = 0;
    // Newest first: the last image of the message is the newest.
    for (let j = sizes.length - 1; j >= 0 && !full; j--) {
      if (kept < maxImages && bytes + sizes[j]! <= maxBase64) {
        kept++;
        bytes += sizes[j]!;
      } else {
        full = true;
        dropped = j + 1;
      }
    }
    if (full && dropped === 0) dropped = sizes.length;
    if (dropped === 0) continue;
    out ??= messages.slice();
    out[i] = trimmed(message, dropped, options.copies, options.note ?? NOT_SENT_AGAIN);
  }
  return out ?? messages;
}

/**
 * `stream` with each request's images windowed (`imageWindow`): one wrapper over a provider, so
 * the session, its sub-agents and compaction's calls all send at most the limits. A request for a
 * model that takes no images (`takesImages`) sends none: each is named, with why, so a text-only
 * local model is not refused a request because read_file once showed a PNG.
 */
export function withImageWindow(
  stream: StreamFn,
  limits: ImageLimits = SENT_IMAGE_LIMITS,
  takesImages: (model: string) => boolean = () => true,
): StreamFn {
  const copies: TrimmedCopies = new WeakMap();
  const textOnly: TrimmedCopies = new WeakMap();
  return (request, signal) => {
    const messages = takesImages(request.model)
      ? imageWindow(request.messages, { limits, copies })
      : imageWindow(request.messages, { limits: NO_IMAGES, copies: textOnly, note: notTaken(request.model) });
    return stream(messages === request.messages ? request : { ...request, messages }, signal);
  };
}

const NO_IMAGES: Readonly<ImageLimits> = Object.freeze({ maxImages: 0, maxBase64: 0 });

/** What follows an image's label for a model that takes none. */
export function notTaken(model: string): string {
  return ` — not sent: ${model} takes no images (settings: models.<id>.images: true if it does)`;
}

/** How many of the newest images the count allows: all up to `maxImages`, past it `dropStep` fewer at a time. */
function countToSend(messages: readonly Message[], limits: { maxImages: number; dropStep?: number }): number {
  let total = 0;
  for (const message of messages) total += imageSizes(message.content).length;
  if (total <= limits.maxImages) return total;
  if (limits.maxImages <= 0) return 0;
  const step = Math.min(Math.max(1, limits.dropStep ?? 1), limits.maxImages);
  return total - Math.ceil((total - limits.maxImages) / step) * step;
}

/** The base64 length of each image in `content`, in order; a tool result's at its place. */
function imageSizes(content: readonly ContentBlock[]): number[] {
  const sizes: number[] = [];
  for (const block of content) {
    if (block.type === 'image') sizes.push(block.data.length);
    else if (block.type === 'tool_result' && block.images) for (const image of block.images) sizes.push(image.data.length);
  }
  return sizes;
}

/** `message` without its first `dropped` images: the copy made for that cut before, or a new one. */
function trimmed(message: Message, dropped: number, copies: TrimmedCopies | undefined, note: string): Message {
  const known = copies?.get(message);
  // The note names the model a text-only request is for: a switch to another makes a new copy.
  if (known && known.dropped === dropped && known.note === note) return known.copy;
  let left = dropped;
  const content = message.content.map((block): ContentBlock => {
    if (left === 0) return block;
    if (block.type === 'image') {
      left--;
      return { type: 'text', text: notSent(block, note) };
    }
    if (block.type !== 'tool_result' || !block.images?.length) return block;
    const cut = Math.min(left, block.images.length);
    left -= cut;
    return withoutImages(block, cut, note);
  });
  const copy: Message = { ...message, content };
  copies?.set(message, { dropped, note, copy });
  return copy;
}

/** A tool result without its first `cut` images, its text saying which were left out. */
function withoutImages(block: ToolResultBlock, cut: number, note: string): ToolResultBlock {
  const images = block.images!;
  const named = images
    .slice(0, cut)
    .map((image) => notSent(image, note))
    .join('\n');
  const copy: ToolResultBlock = { ...block, content: block.content === '' ? named : `${block.content}\n${named}` };
  if (cut < images.length) copy.images = images.slice(cut);
  else delete copy.images;
  return copy;
}

function notSent(image: ImageBlock, note: string): string {
  return imageLabel(imageSummary(image)) + note;
}
