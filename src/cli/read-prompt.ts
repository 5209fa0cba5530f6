import { formatBytes } from '../core/index.js';

/** The largest headless prompt (`-p` or stdin): far more than a person writes, far less than memory. */
export const MAX_PROMPT_BYTES = 10 * 1024 * 1024;

/** A headless prompt that is refused; the message is one line for the user. */
export class PromptInputError extends Error {
  override name = 'PromptInputError';
}

/** A headless prompt past the limit. */
export class PromptTooLargeError extends PromptInputError {
  override name = 'PromptTooLargeError';
}

/** stdin carries JSON-RPC (an editor speaking ACP to plain `outrider`): it is not a prompt for the model. */
export class JsonRpcOnStdinError extends PromptInputError {
  override name = 'JsonRpcOnStdinError';
}

/**
 * Whether the first line of stdin is a JSON-RPC request (an ACP client's `initialize`), judged
 * as soon as the line is complete: such a client never closes stdin, so waiting for its end
 * would wait for ever.
 */
function isJsonRpcRequest(line: string): boolean {
  if (!line.trimStart().startsWith('{')) return false;
  try {
    const message = JSON.parse(line) as { jsonrpc?: unknown; method?: unknown };
    return message.jsonrpc === '2.0' && typeof message.method === 'string';
  } catch {
    return false;
  }
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
  let firstLineSeen = false;
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
    if (!firstLineSeen && buffer.includes(10)) {
      firstLineSeen = true;
      const text = Buffer.concat(chunks).toString('utf8');
      if (isJsonRpcRequest(text.slice(0, text.indexOf('\n')))) {
        throw new JsonRpcOnStdinError(
          'stdin holds JSON-RPC, not a prompt: for an editor speaking ACP run `outrider acp` (docs/acp.md); to ask about the text, pass a prompt with -p',
        );
      }
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
