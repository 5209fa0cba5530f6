import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readUserMessages } from '../../src/cli/stream-input.js';
import { b64, jpegImage, pngImage } from '../support/images.js';

const user = (content: unknown) =>
  JSON.stringify({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: 'x' });

async function readAll(chunks: (string | Buffer)[], maxLineBytes?: number): Promise<string[]> {
  const input = new PassThrough();
  for (const chunk of chunks) input.write(chunk);
  input.end();
  const out: string[] = [];
  for await (const message of readUserMessages(input, { signal: new AbortController().signal, maxLineBytes })) {
    expect(message.images).toEqual([]);
    out.push(message.text);
  }
  return out;
}

describe('readUserMessages', () => {
  it('yields each user message in order: string content, text blocks, blank lines skipped, last line unterminated', async () => {
    const lines = [
      user('first'),
      '',
      user([
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ]),
      '  ',
      user('last'),
    ];
    expect(await readAll([lines.join('\n')])).toEqual(['first', 'a\n\nb', 'last']);
  });

  it('reads image blocks as the Messages API writes them, checked, with or without text', async () => {
    const png = b64(pngImage());
    const input = new PassThrough();
    input.end(
      `${user([
        { type: 'text', text: 'what is this?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      ])}\n${user([{ type: 'image', source: { type: 'base64', data: b64(jpegImage()) } }])}\n`,
    );
    const seen = [];
    for await (const message of readUserMessages(input, { signal: new AbortController().signal })) seen.push(message);
    expect(seen).toEqual([
      { text: 'what is this?', images: [{ type: 'image', mediaType: 'image/png', data: png }] },
      { text: '', images: [{ type: 'image', mediaType: 'image/jpeg', data: b64(jpegImage()) }] },
    ]);
  });

  it('joins lines cut anywhere between chunks, a UTF-8 character included', async () => {
    const bytes = Buffer.from(`${user('café ☕')}\n${user('two')}\n`);
    const cut = bytes.indexOf(Buffer.from('☕')) + 1;
    expect(await readAll([bytes.subarray(0, 5), bytes.subarray(5, cut), bytes.subarray(cut)])).toEqual(['café ☕', 'two']);
  });

  it.each([
    ['not json', 'stdin line 2 is not JSON'],
    [
      JSON.stringify({ type: 'control_request', request: { subtype: 'interrupt' } }),
      'stdin line 2: only user messages are read, got "control_request"',
    ],
    [
      JSON.stringify({ type: 'user', message: { role: 'assistant', content: 'x' } }),
      'stdin line 2: "message" must be {"role":"user","content":…}',
    ],
    [user([{ type: 'tool_result', content: 'x' }]), 'stdin line 2: only text and image content is read, got "tool_result"'],
    [
      user([{ type: 'image', source: { type: 'url', url: 'https://x/a.png' } }]),
      'stdin line 2: image 1 has a "url" source; send',
    ],
    [user([{ type: 'image', source: {} }]), 'stdin line 2: image 1 has no base64 source'],
    [
      user([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64(jpegImage()) } }]),
      'stdin line 2: image 1 is declared image/png but its bytes are JPEG: send it as image/jpeg',
    ],
    [
      user([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR%%%' } }]),
      'stdin line 2: image 1: its data is not base64',
    ],
    [user('   '), 'stdin line 2: the message has no text'],
  ])('refuses %s, naming the line', async (line, message) => {
    const input = new PassThrough();
    input.end(`${user('ok')}\n${line}\n${user('never read')}\n`);
    const seen: string[] = [];
    await expect(async () => {
      for await (const message of readUserMessages(input, { signal: new AbortController().signal })) seen.push(message.text);
    }).rejects.toThrow(message);
    expect(seen).toEqual(['ok']);
  });

  it('refuses a line over the cap, whether or not its newline has come', async () => {
    await expect(readAll([`${user('x'.repeat(100))}\n`], 64)).rejects.toThrow('stdin line 1 is longer than 64 B');
    await expect(readAll([user('x'.repeat(100))], 64)).rejects.toThrow('stdin line 1 is longer than 64 B');
  });

  it('stops waiting for the next line when the signal aborts', async () => {
    const input = new PassThrough();
    const controller = new AbortController();
    input.write(`${user('one')}\n`);
    const messages = readUserMessages(input, { signal: controller.signal });
    expect(await messages.next()).toEqual({ value: { text: 'one', images: [] }, done: false });
    // The stream stays open and silent: only the abort can end the wait.
    const next = messages.next();
    controller.abort();
    expect(await next).toEqual({ value: undefined, done: true });
    expect(input.destroyed).toBe(true);
  });
});
