import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JsonRpcOnStdinError, PromptTooLargeError, readPrompt } from '../../src/cli/read-prompt.js';

/** A stdin that never ends: every read gets another chunk. */
function endless(chunk: Buffer): Readable & { reads: number } {
  const stream = new Readable({
    read() {
      stream.reads += 1;
      this.push(chunk);
    },
  }) as Readable & { reads: number };
  stream.reads = 0;
  return stream;
}

describe('readPrompt', () => {
  it('takes -p text, else stdin whole', async () => {
    expect(await readPrompt({ print: 'hello', stdin: Readable.from([]), maxBytes: 10 })).toBe('hello');
    expect(
      await readPrompt({ print: true, stdin: Readable.from([Buffer.from('from '), Buffer.from('stdin')]), maxBytes: 10 }),
    ).toBe('from stdin');
    // A blank -p falls back to stdin, as before.
    expect(await readPrompt({ print: '  ', stdin: Readable.from([Buffer.from('piped')]), maxBytes: 10 })).toBe('piped');
  });

  it('reads no stdin from a terminal', async () => {
    const tty = Object.assign(Readable.from([Buffer.from('typed')]), { isTTY: true });
    expect(await readPrompt({ print: undefined, stdin: tty, maxBytes: 10 })).toBe('');
  });

  it('accepts exactly the limit, in bytes, not characters', async () => {
    expect(await readPrompt({ print: true, stdin: Readable.from([Buffer.from('é'.repeat(5))]), maxBytes: 10 })).toBe('ééééé');
    await expect(readPrompt({ print: 'é'.repeat(6), stdin: Readable.from([]), maxBytes: 10 })).rejects.toThrow(
      PromptTooLargeError,
    );
  });

  it('refuses a -p prompt over the limit, saying its size and the limit', async () => {
    const error = await readPrompt({
      print: 'x'.repeat(3 * 1024 * 1024),
      stdin: Readable.from([]),
      maxBytes: 2 * 1024 * 1024,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PromptTooLargeError);
    expect((error as Error).message).toBe(
      'the prompt is 3 MB, over the 2 MB limit for a headless prompt; put the text in a file and ask for it to be read (-p "read notes.md")',
    );
  });

  it('refuses JSON-RPC on stdin as soon as its first line is in, though stdin never ends (an ACP editor)', async () => {
    const initialize = Buffer.from('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n');
    const stdin = endless(initialize);
    await expect(readPrompt({ print: true, stdin })).rejects.toThrow(JsonRpcOnStdinError);
    expect(stdin.destroyed).toBe(true);
    // JSON that is not a JSON-RPC request is a prompt like any other.
    const json = '{"name":"value"}\nwhat is this?';
    expect(await readPrompt({ print: true, stdin: Readable.from([Buffer.from(json)]) })).toBe(json);
  });

  it('stops reading an endless stdin at the limit instead of holding it all', async () => {
    const stdin = endless(Buffer.alloc(64 * 1024, 'y'));
    await expect(readPrompt({ print: true, stdin, maxBytes: 1024 * 1024 })).rejects.toThrow(
      'the prompt on stdin is over the 1 MB limit for a headless prompt; put the text in a file and ask for it to be read (-p "read notes.md")',
    );
    expect(stdin.destroyed).toBe(true);
    // 16 chunks of 64 KB make the limit; the one past it ends the read.
    expect(stdin.reads).toBeLessThanOrEqual(20);
  });
});
