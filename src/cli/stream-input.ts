/**
 * `--input-format stream-json`: user messages on stdin, one JSON object a line, in Claude
 * Code's shape: `{"type":"user","message":{"role":"user","content":"…"}}` (content a string,
 * or text and image blocks as the Messages API writes them: the Agent SDK's screenshots).
 * Each line is read only when the turn before it has ended.
 */
import { formatSize, type ImageBlock, ImageError, type ImageInput, imageBlocks } from '../core/index.js';

/** A line bigger than this is refused: the same bound as a headless prompt. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** A line that is not a user message, or too long; the message names the line. */
export class StreamInputError extends Error {
  override name = 'StreamInputError';
}

/** What a line looks like, for error messages. */
export const USER_MESSAGE_SHAPE = '{"type":"user","message":{"role":"user","content":"…"}}';
const SHAPE = USER_MESSAGE_SHAPE;

/** One user message: its text and its images, checked (type from the bytes, size, count). */
export interface UserMessage {
  text: string;
  images: ImageBlock[];
}

/**
 * Each user message on `input`, in order, until EOF or `signal` aborts. Blank lines are
 * skipped; anything else that is not a user message throws StreamInputError.
 */
export async function* readUserMessages(
  input: NodeJS.ReadableStream,
  options: { signal: AbortSignal; maxLineBytes?: number },
): AsyncGenerator<UserMessage> {
  for await (const { line, lineNumber } of readLines(input, options)) {
    const message = parseLine(line, lineNumber);
    if (message !== undefined) yield message;
  }
}

/**
 * The lines of `input`, each at most `maxLineBytes` (else StreamInputError), until EOF or
 * `signal` aborts; the last line may end without a newline.
 */
export async function* readLines(
  input: NodeJS.ReadableStream,
  options: { signal: AbortSignal; maxLineBytes?: number },
): AsyncGenerator<{ line: string; lineNumber: number }> {
  const max = options.maxLineBytes ?? MAX_LINE_BYTES;
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const aborted = new Promise<'aborted'>((resolve) => {
    if (options.signal.aborted) resolve('aborted');
    options.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNumber = 0;
  try {
    for (;;) {
      const next = await Promise.race([chunks.next(), aborted]);
      if (next === 'aborted') return;
      if (next.done) break;
      let chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      const tooLong = () =>
        new StreamInputError(
          `stdin line ${lineNumber + 1} is longer than ${formatSize(max)}; send one message a line, each at most that`,
        );
      for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a)) {
        if (pendingBytes + newline > max) throw tooLong();
        pending.push(chunk.subarray(0, newline));
        chunk = chunk.subarray(newline + 1);
        lineNumber += 1;
        const line = Buffer.concat(pending).toString('utf8');
        pending = [];
        pendingBytes = 0;
        yield { line, lineNumber };
        if (options.signal.aborted) return;
      }
      pending.push(chunk);
      pendingBytes += chunk.byteLength;
      if (pendingBytes > max) throw tooLong();
    }
    // The last line may end without a newline.
    const rest = Buffer.concat(pending).toString('utf8');
    if (rest !== '') yield { line: rest, lineNumber: lineNumber + 1 };
  } finally {
    // Not awaited: after an abort a read is still pending, and the stream's return waits for it.
    // The stream is destroyed instead, so an open stdin does not keep the process alive.
    void Promise.resolve(chunks.return?.()).catch(() => {});
    if (options.signal.aborted) (input as { destroy?: () => void }).destroy?.();
  }
}

/** The user message of one line; undefined for a blank line. */
export function parseLine(line: string, lineNumber: number): UserMessage | undefined {
  if (line.trim() === '') return undefined;
  const where = `stdin line ${lineNumber}`;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new StreamInputError(`${where} is not JSON (${(error as Error).message}); expected ${SHAPE}`);
  }
  const object = value as { type?: unknown; message?: { role?: unknown; content?: unknown } } | null;
  if (object === null || typeof object !== 'object' || object.type !== 'user') {
    const type =
      object !== null && typeof object === 'object' && typeof object.type === 'string' ? `"${object.type}"` : 'no type';
    throw new StreamInputError(`${where}: only user messages are read, got ${type}; expected ${SHAPE}`);
  }
  const message = object.message;
  if (message === null || typeof message !== 'object' || (message.role !== undefined && message.role !== 'user')) {
    throw new StreamInputError(`${where}: "message" must be {"role":"user","content":…}; expected ${SHAPE}`);
  }
  const read = contentOf(message.content, where);
  if (read.text.trim() === '' && read.images.length === 0) throw new StreamInputError(`${where}: the message has no text`);
  return read;
}

/** A string, or text blocks joined by blank lines and image blocks; other blocks (tool results) are refused. */
function contentOf(content: unknown, where: string): UserMessage {
  if (typeof content === 'string') return { text: content, images: [] };
  if (!Array.isArray(content)) {
    throw new StreamInputError(`${where}: "content" must be a string or a list of text and image blocks`);
  }
  const texts: string[] = [];
  const images: ImageInput[] = [];
  for (const block of content as unknown[]) {
    const b = block as { type?: unknown; text?: unknown; source?: unknown } | null;
    if (b?.type === 'text' && typeof b.text === 'string') texts.push(b.text);
    else if (b?.type === 'image') images.push(imageSource(b.source, `${where}: image ${images.length + 1}`));
    else {
      const type = typeof b?.type === 'string' ? `"${b.type}"` : 'a block without a type';
      throw new StreamInputError(`${where}: only text and image content is read, got ${type}`);
    }
  }
  try {
    return { text: texts.join('\n\n'), images: imageBlocks(images, where) };
  } catch (error) {
    if (error instanceof ImageError) throw new StreamInputError(error.message);
    throw error;
  }
}

/** An image block's source as the Messages API writes it: `{"type":"base64","media_type":…,"data":…}`. */
function imageSource(source: unknown, name: string): ImageInput {
  const s = source as { type?: unknown; media_type?: unknown; data?: unknown } | null;
  if (s?.type === 'base64' && typeof s.data === 'string' && (s.media_type === undefined || typeof s.media_type === 'string')) {
    return { data: s.data, ...(s.media_type !== undefined ? { mediaType: s.media_type } : {}) };
  }
  const kind = typeof s?.type === 'string' ? `a "${s.type}" source` : 'no base64 source';
  throw new StreamInputError(
    `${name} has ${kind}; send {"type":"base64","media_type":"image/png","data":"<base64>"} (images by URL or file id are not fetched)`,
  );
}
