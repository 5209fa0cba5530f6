import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError, type ImageBlock, type Message } from '../../../src/core/providers/types.js';
import { type ImageApi, imageProvider } from '../../support/image-provider.js';
import { type MockProvider, startMockProvider } from '../../support/mock-provider.js';
import { b64, gifImage, jpegImage, pngImage } from '../../support/images.js';
import { collect, request } from '../../support/stream-helpers.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const provider = (api: ImageApi) => imageProvider(mock, api);

const png: ImageBlock = { type: 'image', mediaType: 'image/png', data: b64(pngImage(3, 2)) };
const gif: ImageBlock = { type: 'image', mediaType: 'image/gif', data: b64(gifImage()) };
const prompt: Message = { role: 'user', content: [png, { type: 'text', text: 'What is in this screenshot?' }, gif] };
const answer: Message = { role: 'assistant', content: [{ type: 'text', text: 'A red square.' }] };
const followUp: Message = { role: 'user', content: [{ type: 'text', text: 'And the colour?' }] };

/** Where each wire keeps the history, and what the prompt's images become in it. */
const wire = {
  anthropic: {
    history: (body: any) => body.messages,
    prompt: [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.data } },
      { type: 'text', text: 'What is in this screenshot?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: gif.data } },
    ],
    first: (body: any) => body.messages[0].content,
  },
  chat: {
    history: (body: any) => body.messages.filter((m: any) => m.role !== 'system'),
    prompt: [
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png.data}` } },
      { type: 'text', text: 'What is in this screenshot?' },
      { type: 'image_url', image_url: { url: `data:image/gif;base64,${gif.data}` } },
    ],
    first: (body: any) => body.messages.find((m: any) => m.role === 'user').content,
  },
  responses: {
    history: (body: any) => body.input,
    prompt: [
      { type: 'input_image', image_url: `data:image/png;base64,${png.data}`, detail: 'auto' },
      { type: 'input_text', text: 'What is in this screenshot?' },
      { type: 'input_image', image_url: `data:image/gif;base64,${gif.data}`, detail: 'auto' },
    ],
    first: (body: any) => body.input[0].content,
  },
} as const;

describe.each(['anthropic', 'chat', 'responses'] as const)('images on the %s wire, through the real SDK', (api) => {
  it('sends a prompt’s images in order with its text, as the API takes them', async () => {
    mock.script({ text: 'A red square.' });
    const result = await collect(provider(api)(request({ messages: [prompt] }), new AbortController().signal));
    expect(result.error).toBeUndefined();
    expect(result.end?.message.content).toEqual(answer.content);
    const first = wire[api].first(mock.requests[0]!.body);
    // Anthropic's last block carries the cache breakpoint.
    const strip = (blocks: any[]) => blocks.map(({ cache_control: _c, ...rest }) => rest);
    expect(strip(first)).toEqual(wire[api].prompt);
  });

  it('keeps the request prefix byte-stable: the next request starts with the same history bytes', async () => {
    mock.script({ text: 'A red square.' }, { text: 'Red.' });
    const stream = provider(api);
    await collect(stream(request({ messages: [prompt] }), new AbortController().signal));
    await collect(stream(request({ messages: [prompt, answer, followUp] }), new AbortController().signal));
    const [one, two] = mock.requests.map((r) => r.body);
    const history = (body: any) => JSON.stringify(wire[api].history(body), (k, v) => (k === 'cache_control' ? undefined : v));
    expect(history(two).startsWith(history(one).slice(0, -1))).toBe(true);
    // What was sent is what the SDK would have serialized: the images' bytes are in the raw body unchanged.
    expect(mock.requests[1]!.raw).toContain(png.data);
    expect(mock.requests[1]!.raw.indexOf(png.data)).toBe(mock.requests[1]!.raw.lastIndexOf(png.data));
  });
});

describe('the mock refuses images the real APIs refuse', () => {
  const bad = (block: Partial<ImageBlock>): Message => ({
    role: 'user',
    content: [
      { type: 'image', mediaType: 'image/png', data: b64(pngImage()), ...block } as ImageBlock,
      { type: 'text', text: 'x' },
    ],
  });

  it.each([
    ['anthropic', bad({ data: b64(jpegImage()) }), 'Image does not match the provided media type image/png'],
    ['anthropic', bad({ mediaType: 'image/bmp' as ImageBlock['mediaType'] }), "Input should be 'image/jpeg', 'image/png'"],
    ['anthropic', bad({ data: 'iVBO\nw0K' }), 'invalid base64 data'],
    ['chat', bad({ data: b64(Buffer.from('hello, world')) }), 'You uploaded an unsupported image'],
    ['chat', bad({ mediaType: 'image/bmp' as ImageBlock['mediaType'] }), "unsupported MIME type 'image/bmp'"],
    ['responses', bad({ data: 'not base64!' }), 'the data is not valid base64'],
  ] as const)('%s: %#', async (api, message, error) => {
    mock.script({ text: 'never sent' });
    const result = await collect(provider(api)(request({ messages: [message] }), new AbortController().signal));
    expect(result.error).toBeInstanceOf(ProviderError);
    expect((result.error as ProviderError).options.status).toBe(400);
    expect((result.error as Error).message).toContain(error);
    expect(mock.pending()).toBe(1);
  });

  it('anthropic: an image in an assistant message is refused', async () => {
    const history: Message[] = [followUp, { role: 'assistant', content: [png] }, followUp];
    const result = await collect(provider('anthropic')(request({ messages: history }), new AbortController().signal));
    expect((result.error as Error).message).toContain('Image content is only supported in user messages');
  });
});
