/**
 * `--input-format stream-json`: user messages on stdin, one JSON object a line, in Claude
 * Code's shape: `{"type":"user","message":{"role":"user","content":"…"}}` (content a string
 * or text blocks). Each line is read only when the turn before it has ended.
 */
import { formatSize } from '../core/index.js';

/** A line bigger than this is refused: the same bound as a headless prompt. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** A line that is not a user message, or too long; the message names the line. */
export class StreamInputError extends Error {
  override name = 'StreamInputError';
}

/** What a line looks like, for error messages. */
export const USER_MESSAGE_SHAPE = '{"type":"user","message":{"role":"user","content":"…"}}';
const SHAPE = USER_MESSAGE_SHAPE;

/**
 * The text of each user message on `input`, in order, until EOF or `signal` aborts. Blank
 * lines are skipped; anything else that is not a user message throws StreamInputError.
 */
export async function* readUserMessages(
  input: NodeJS.ReadableStream,
  options: { signal: AbortSignal; maxLineBytes?: number },
): AsyncGenerator<string> {
  for await (const { line, lineNumber } of readLines(input, options)) {
    const text = parseLine(line, lineNumber);
    if (text !== undefined) yield text;
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

/** The message text of one line; undefined for a blank line. */
export function parseLine(line: string, lineNumber: number): string | undefined {
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
  const text = contentText(message.content, where);
  if (text.trim() === '') throw new StreamInputError(`${where}: the message has no text`);
  return text;
}

/** A string, or text blocks joined by blank lines; other blocks (images, tool results) are refused. */
function contentText(content: unknown, where: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new StreamInputError(`${where}: "content" must be a string or a list of text blocks`);
  return content
    .map((block: unknown) => {
      const b = block as { type?: unknown; text?: unknown } | null;
      if (b?.type === 'text' && typeof b.text === 'string') return b.text;
      const type = typeof b?.type === 'string' ? `"${b.type}"` : 'a block without a type';
      throw new StreamInputError(`${where}: only text content is read, got ${type}`);
    })
    .join('\n\n');
}
