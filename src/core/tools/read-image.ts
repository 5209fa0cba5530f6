/**
 * read_file of an image: the bytes' magic number decides, never the name. What image-block.ts
 * would let into the history is returned as an image beside a line of text that says what it is
 * (hooks, transcripts and stream-json read the text alone); anything it would refuse becomes a
 * text result saying why and what to do instead.
 */
import { isUtf8 } from 'node:buffer';
import type { ToolOutput } from './define.js';
import { type SniffedImage, sniffImage } from '../platform/image-bytes.js';
import { completeUtf8Length } from '../platform/read-text-file.js';
import { formatSize } from '../platform/text.js';
import { IMAGE_TYPE_NAMES, ImageError, MAX_IMAGE_BASE64, MAX_IMAGE_SIDE, imageFromBytes } from '../providers/image-block.js';

/** How far a file is looked at to tell an image from text that starts like one. */
const HEAD = 8 * 1024;

/**
 * The bytes' image type, when they start as one and are not text: `GIF89a…` and `RIFF…WEBP` are
 * ASCII, so a text file may begin with them, but no image is NUL-free UTF-8 (PNG and JPEG magic
 * are not UTF-8 at all; the others carry NUL bytes in their headers).
 */
export function imageType(head: Buffer): SniffedImage | undefined {
  const sniffed = sniffImage(head);
  if (!sniffed) return undefined;
  const part = head.subarray(0, HEAD);
  const text = !part.includes(0) && isUtf8(part.subarray(0, completeUtf8Length(part)));
  return text ? undefined : sniffed;
}

/** A whole file read as an image, or undefined when its bytes are not one (they are then read as text or binary). */
export function readImage(shown: string, bytes: Buffer): ToolOutput | undefined {
  const sniffed = imageType(bytes);
  if (!sniffed) return undefined;
  const kind = IMAGE_TYPE_NAMES[sniffed.mediaType];
  if (!sniffed.size) {
    return {
      content: `${shown} starts like a ${kind} image, but its header is cut short or damaged; read_file cannot show it.`,
      isError: true,
    };
  }
  const { width, height } = sniffed.size;
  const what = `${kind} image, ${width}×${height}, ${formatSize(bytes.length)}`;
  try {
    return { content: `${shown}: ${what}`, images: [imageFromBytes(bytes, shown)] };
  } catch (error) {
    if (!(error instanceof ImageError)) throw error;
    const limits = [
      ...(width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE ? [SIDE_LIMIT] : []),
      ...(4 * Math.ceil(bytes.length / 3) > MAX_IMAGE_BASE64 ? [BYTES_LIMIT] : []),
    ];
    // imageFromBytes has the last word: a refusal neither limit explains is passed on as it said it.
    if (limits.length === 0) return { content: `${error.message}; read_file cannot show it.`, isError: true };
    return tooLarge(shown, what, limits.join(' and '));
  }
}

/** A file too large to read whole that starts as an image: refused by its size alone. */
export function largeImage(shown: string, head: Buffer, size: number): ToolOutput | undefined {
  const sniffed = imageType(head);
  if (!sniffed) return undefined;
  const pixels = sniffed.size ? `, ${sniffed.size.width}×${sniffed.size.height}` : '';
  return tooLarge(shown, `${IMAGE_TYPE_NAMES[sniffed.mediaType]} image${pixels}, ${formatSize(size)}`);
}

const SIDE_LIMIT = `at most ${MAX_IMAGE_SIDE} px a side`;
const BYTES_LIMIT = `at most ${formatSize((MAX_IMAGE_BASE64 * 3) / 4)} (${formatSize(MAX_IMAGE_BASE64)} as base64)`;

function tooLarge(shown: string, what: string, limit = BYTES_LIMIT): ToolOutput {
  return {
    content:
      `${shown} (${what}) is too large to send to the model: images go ${limit}. ` +
      `Make a smaller copy (for example \`convert <file> -resize 50% small.jpg\` with ImageMagick) and read that.`,
    isError: true,
  };
}
