/**
 * Images a user attaches (an editor's prompt, the Agent SDK's stream-json, `@shot.png`), made
 * into ImageBlocks only when every provider would take them: the type is read from the bytes,
 * never trusted from the sender, and a declared type that disagrees is refused, as are data that
 * is not base64, an image over the size or pixel limits and too many images at once. What gets
 * into the history is sent with every later request, so an image an API would refuse must be
 * refused here, before it can make every call of the session fail.
 */
import { IMAGE_MEDIA_TYPES, type ImageMediaType, sniffImage } from '../platform/image-bytes.js';
import { formatSize } from '../platform/text.js';
import type { ImageBlock } from './types.js';

/** Anthropic's limit per image, on the base64 text it travels as (about 3.75 MB of image). */
export const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;
/** The most images one prompt carries. */
export const MAX_PROMPT_IMAGES = 20;
/** The longest side Anthropic takes, in pixels. */
export const MAX_IMAGE_SIDE = 8000;
/** What an image counts for in the token estimate, whatever its base64 length: about a large screenshot's cost. */
export const IMAGE_TOKENS = 1_600;

/** An image that cannot be sent; the message says which one, why, and what to do. */
export class ImageError extends Error {
  override name = 'ImageError';
}

/** An image as a sender hands it over: base64 data (or a data: URL) and the type it claims. */
export interface ImageInput {
  data: string;
  mediaType?: string;
}

/** Each type's name as people write it: `PNG`, `JPEG`, `GIF`, `WebP`. */
export const IMAGE_TYPE_NAMES: Readonly<Record<ImageMediaType, string>> = {
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/gif': 'GIF',
  'image/webp': 'WebP',
};
const TAKEN = 'PNG, JPEG, GIF or WebP';
const DATA_URL = /^data:([^;,]*)(?:;[^;,]*)*;base64,/i;

/** Every image of one prompt checked, in order (`image 1`, `image 2` … in messages, after `where`). */
export function imageBlocks(inputs: readonly ImageInput[], where = ''): ImageBlock[] {
  checkImageCount(inputs.length);
  const prefix = where ? `${where}: ` : '';
  return inputs.map((input, i) => imageBlock(input, `${prefix}image ${i + 1}`));
}

/** Throws when a prompt carries more images than one is allowed. */
export function checkImageCount(count: number): void {
  if (count > MAX_PROMPT_IMAGES) {
    throw new ImageError(`${count} images in one prompt; the limit is ${MAX_PROMPT_IMAGES}: send the rest in another prompt`);
  }
}

/** One image checked: the block to send, or an ImageError naming `name`. */
export function imageBlock(input: ImageInput, name = 'the image'): ImageBlock {
  let { data, mediaType: declared } = input;
  if (typeof data !== 'string') throw new ImageError(`${name} has no data: send its bytes base64-encoded`);
  const url = DATA_URL.exec(data.slice(0, 200));
  if (url) {
    declared ??= url[1];
    data = data.slice(url[0].length);
  }
  // Twice the limit covers any line breaks; past it, nothing is scanned.
  if (data.length > 2 * MAX_IMAGE_BASE64) throw tooLarge(name, data.length);
  const base64 = canonicalBase64(data);
  if (base64 === undefined) {
    throw new ImageError(
      `${name}: its data is not base64 (A–Z, a–z, 0–9, + and /, = padding): send the file's bytes base64-encoded`,
    );
  }
  if (base64.length > MAX_IMAGE_BASE64) throw tooLarge(name, base64.length);
  const wanted = declared === undefined ? undefined : declaredType(declared, name);
  return checked(Buffer.from(base64, 'base64'), base64, name, wanted);
}

/** A file's bytes as an image block (`@shot.png`, read_file), or an ImageError naming `name`. */
export function imageFromBytes(bytes: Uint8Array, name: string): ImageBlock {
  const length = 4 * Math.ceil(bytes.length / 3);
  if (length > MAX_IMAGE_BASE64) throw tooLarge(name, length);
  return checked(bytes, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'), name, undefined);
}

function checked(bytes: Uint8Array, base64: string, name: string, declared: ImageMediaType | undefined): ImageBlock {
  const sniffed = sniffImage(bytes);
  if (!sniffed) throw new ImageError(`${name}: its bytes are not a ${TAKEN} image (the only types a model takes)`);
  if (declared && declared !== sniffed.mediaType) {
    throw new ImageError(
      `${name} is declared ${declared} but its bytes are ${IMAGE_TYPE_NAMES[sniffed.mediaType]}: send it as ${sniffed.mediaType}`,
    );
  }
  const kind = IMAGE_TYPE_NAMES[sniffed.mediaType];
  if (!sniffed.size) throw new ImageError(`${name}: its ${kind} header is cut short or damaged: send the whole file`);
  const { width, height } = sniffed.size;
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    throw new ImageError(`${name} is ${width}×${height} px; a side may be at most ${MAX_IMAGE_SIDE} px: scale it down`);
  }
  return { type: 'image', mediaType: sniffed.mediaType, data: base64 };
}

function declaredType(raw: string, name: string): ImageMediaType {
  const type = raw.trim().toLowerCase();
  // `image/jpg` is what many senders write for JPEG.
  const known = type === 'image/jpg' ? 'image/jpeg' : type;
  if ((IMAGE_MEDIA_TYPES as readonly string[]).includes(known)) return known as ImageMediaType;
  const shown = JSON.stringify(raw.slice(0, 60));
  throw new ImageError(`${name} is declared ${shown}, a type no model takes: send ${TAKEN}`);
}

function tooLarge(name: string, base64Length: number): ImageError {
  return new ImageError(
    `${name} is ${formatSize(base64Length)} as base64 (${formatSize(Math.floor((base64Length * 3) / 4))} of image); ` +
      `the limit is ${formatSize(MAX_IMAGE_BASE64)} as base64: scale it down or send it as JPEG`,
  );
}

/** Standard base64 with its padding, line breaks and spaces taken out; undefined when it is not that. */
function canonicalBase64(raw: string): string | undefined {
  const data = /\s/.test(raw) ? raw.replace(/\s+/g, '') : raw;
  if (data.length === 0 || data.length % 4 !== 0) return undefined;
  const body = data.endsWith('==') ? data.slice(0, -2) : data.endsWith('=') ? data.slice(0, -1) : data;
  // A character class, not a pattern of groups: no backtracking over megabytes.
  return /[^A-Za-z0-9+/]/.test(body) ? undefined : data;
}

/** Bytes of the image a block carries (from its base64 length; nothing is decoded). */
export function imageByteLength(block: Pick<ImageBlock, 'data'>): number {
  const { data } = block;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, (data.length / 4) * 3 - padding);
}

/** What a person reads for an image: `[image: 34.0 KB png]`. */
export function imageLabel(image: ImageSummary): string {
  return `[image: ${formatSize(image.bytes)} ${image.mediaType.slice('image/'.length)}]`;
}

/** An image without its data: what events and labels carry. */
export interface ImageSummary {
  mediaType: ImageMediaType;
  bytes: number;
}

export function imageSummary(block: ImageBlock): ImageSummary {
  return { mediaType: block.mediaType, bytes: imageByteLength(block) };
}

/** A block read back from a transcript (or any untrusted copy) still holds an image a provider takes. */
export function isSendableImage(block: { mediaType?: unknown; data?: unknown }): boolean {
  if (typeof block.data !== 'string' || typeof block.mediaType !== 'string') return false;
  try {
    // Stored as sent: canonical already, so nothing about it may change.
    return imageBlock({ data: block.data, mediaType: block.mediaType }).data === block.data;
  } catch {
    return false;
  }
}
