import { formatBytes } from '../core/index.js';

/** The largest headless prompt (`-p` or stdin): far more than a person writes, far less than memory. */
export const MAX_PROMPT_BYTES = 10 * 1024 * 1024;

/** A headless prompt past the limit; the message is one line for the user. */
export class PromptTooLargeError extends Error {
  override name = 'PromptTooLargeError';
}

const HOW_TO_FIX = 'put the text in a file and ask for it to be read (-p "read notes.md")';

/**
 * The headless prompt: `-p` text, else all of stdin (none from a terminal). Stdin is read only
 * to the limit: past it the stream is destroyed and the read refused, so a 300 MB pipe (or an
 * endless one) never sits in memory.
 */
export async function readPrompt(input: {
  print: string | boolean | undefined;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  maxBytes?: number;
}): Promise<string> {
  const maxBytes = input.maxBytes ?? MAX_PROMPT_BYTES;
  if (typeof input.print === 'string' && input.print.trim()) {
    const size = Buffer.byteLength(input.print, 'utf8');
    if (size > maxBytes) {
      throw new PromptTooLargeError(
        `the prompt is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} limit for a headless prompt; ${HOW_TO_FIX}`,
      );
    }
    return input.print;
  }
  if (input.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early destroys the stream: nothing more is read.
  for await (const chunk of input.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += buffer.length;
    if (size > maxBytes) {
      throw new PromptTooLargeError(
        `the prompt on stdin is over the ${formatBytes(maxBytes)} limit for a headless prompt; ${HOW_TO_FIX}`,
      );
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
