/**
 * The mock provider's checks of the images in a request, as the real APIs make them, so a test
 * catches an image sent in a shape or encoding the API would refuse: Anthropic's image blocks
 * (base64 source, one of four media types, the bytes matching it, at most 5 MB of base64, never in
 * an assistant message; in a tool_result's content list beside non-empty text), OpenAI Chat's
 * image_url parts (user messages only: a tool message takes text alone) and the Responses API's
 * input_image parts (a base64 data URL of one of the four types whose bytes are an image; in user
 * messages and in a function_call_output's output list).
 * Written apart from outrider's own checks (src/core/providers/image-block.ts), so it does not
 * share their mistakes.
 */
import type { WireFormat } from './mock-wire.js';

const TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const MAX_BASE64 = 5 * 1024 * 1024;
/** What a tool_result's content list may hold. */
const RESULT_PARTS = ['text', 'image', 'search_result', 'document'];

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null;
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Why the API would refuse the images of `body`, in its words, or undefined. */
export function imageError(format: WireFormat, body: unknown): string | undefined {
  if (!isObj(body)) return undefined;
  if (format === 'anthropic') return anthropicImages(list(body.messages));
  if (format === 'openai') return chatImages(list(body.messages));
  return responsesImages(list(body.input));
}

function anthropicImages(messages: unknown[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    if (!isObj(message)) continue;
    for (const [j, block] of list(message.content).entries()) {
      if (!isObj(block)) continue;
      const where = `messages.${i}.content.${j}`;
      if (block.type === 'image') {
        if (message.role !== 'user') return `${where}: Image content is only supported in user messages`;
        const error = anthropicImage(block, where);
        if (error) return error;
      }
      if (block.type === 'tool_result') {
        for (const [k, part] of list(block.content).entries()) {
          const type = isObj(part) ? part.type : undefined;
          if (!RESULT_PARTS.includes(type as string)) {
            return `${where}.tool_result.content.${k}: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document'`;
          }
          if (type === 'text' && isObj(part) && part.text === '')
            return `${where}.content.${k}: text content blocks must be non-empty`;
          const error = type === 'image' ? anthropicImage(part as Obj, `${where}.content.${k}`) : undefined;
          if (error) return error;
        }
      }
    }
  }
  return undefined;
}

function anthropicImage(block: Obj, where: string): string | undefined {
  const source = block.source;
  if (!isObj(source) || source.type !== 'base64') return `${where}.image.source: Field required`;
  if (typeof source.media_type !== 'string' || !TYPES.includes(source.media_type)) {
    return `${where}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
  }
  if (typeof source.data !== 'string' || !isBase64(source.data)) return `${where}.image.source.base64: invalid base64 data`;
  if (source.data.length > MAX_BASE64) {
    return `${where}.image.source.base64: image exceeds 5 MB maximum: ${source.data.length} bytes > ${MAX_BASE64} bytes`;
  }
  const actual = typeOfBytes(Buffer.from(source.data, 'base64'));
  if (actual === undefined) return `${where}.image.source.base64.data: Could not process image`;
  if (actual !== source.media_type) {
    return `${where}.image.source.base64.data: Image does not match the provided media type ${source.media_type}`;
  }
  return undefined;
}

function chatImages(messages: unknown[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    if (!isObj(message)) continue;
    for (const [j, part] of list(message.content).entries()) {
      if (!isObj(part) || part.type !== 'image_url') continue;
      const where = `messages[${i}].content[${j}]`;
      if (message.role !== 'user') return `Invalid '${where}': image_url parts are only allowed in user messages.`;
      const url = isObj(part.image_url) ? part.image_url.url : undefined;
      const error = dataUrlError(url, `${where}.image_url.url`);
      if (error) return error;
    }
  }
  return undefined;
}

function responsesImages(items: unknown[]): string | undefined {
  for (const [i, item] of items.entries()) {
    if (!isObj(item)) continue;
    if (item.type === 'function_call_output') {
      const error = outputImages(item.output, `input[${i}].output`);
      if (error) return error;
      continue;
    }
    for (const [j, part] of list(item.content).entries()) {
      if (!isObj(part) || part.type !== 'input_image') continue;
      const where = `input[${i}].content[${j}]`;
      if (item.role !== 'user') return `Invalid '${where}': input_image is only allowed in user messages.`;
      const error = dataUrlError(part.image_url, `${where}.image_url`);
      if (error) return error;
    }
  }
  return undefined;
}

/** A function_call_output's output: a string, or a list of input_text, input_image and input_file parts. */
function outputImages(output: unknown, where: string): string | undefined {
  if (typeof output === 'string') return undefined;
  if (!Array.isArray(output)) return `Invalid type for '${where}': expected one of a string or an array of objects.`;
  for (const [k, part] of output.entries()) {
    const type = isObj(part) ? part.type : undefined;
    if (type === 'input_text' && isObj(part) && typeof part.text === 'string') continue;
    if (type === 'input_file') continue;
    if (type !== 'input_image' || !isObj(part)) {
      return `Invalid value for '${where}[${k}].type': expected one of 'input_text', 'input_image' or 'input_file'.`;
    }
    const error = dataUrlError(part.image_url, `${where}[${k}].image_url`);
    if (error) return error;
  }
  return undefined;
}

/** OpenAI's checks of an image given as a data URL (the only kind these tests send). */
function dataUrlError(url: unknown, where: string): string | undefined {
  const match = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  if (!match) {
    return `Invalid '${where}'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without one.`;
  }
  const [, type, data] = match as unknown as [string, string, string];
  if (!TYPES.includes(type)) {
    return `Invalid '${where}'. Expected a base64-encoded data URL with an image MIME type, but got unsupported MIME type '${type}'.`;
  }
  if (!isBase64(data)) return `Invalid '${where}'. Expected a base64-encoded data URL, but the data is not valid base64.`;
  if (typeOfBytes(Buffer.from(data, 'base64')) === undefined) {
    return "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].";
  }
  return undefined;
}

/** Strict base64: the standard alphabet in groups of four, `=` only as the last one or two characters. */
function isBase64(data: string): boolean {
  if (data.length === 0 || data.length % 4 !== 0) return false;
  const body = data.replace(/={1,2}$/, '');
  return !/[^A-Za-z0-9+/]/.test(body);
}

function typeOfBytes(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const head = bytes.subarray(0, 12).toString('latin1');
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'image/gif';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}
