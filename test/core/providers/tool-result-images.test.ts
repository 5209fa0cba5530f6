/**
 * A tool result's images on each wire, through the real SDK clients and the mock provider: the
 * shapes the APIs take (and the mock refusing the ones they refuse), images beside a user's own
 * in one message, two results with images, and the estimates counting an image at a fixed cost.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RequestSizer } from '../../../src/core/jobs/call-estimate.js';
import { type ImageBlock, type Message } from '../../../src/core/providers/types.js';
import { estimateTokens } from '../../../src/core/session/compaction.js';
import { b64, gifImage, jpegImage, pngImage } from '../../support/images.js';
import { type ImageApi, imageProvider } from '../../support/image-provider.js';
import { type MockProvider, startMockProvider } from '../../support/mock-provider.js';
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
const jpeg: ImageBlock = { type: 'image', mediaType: 'image/jpeg', data: b64(jpegImage()) };
const url = (image: ImageBlock) => `data:${image.mediaType};base64,${image.data}`;

/** Two calls, both answered with an image, and the user's own text and image in the same message. */
const history: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'Compare a.png and b.gif' }] },
  {
    role: 'assistant',
    content: [
      { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.png' } },
      { type: 'tool_use', id: 'call_b', name: 'read_file', input: { path: 'b.gif' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', toolUseId: 'call_a', content: 'a.png: PNG image, 3×2, 80 B', images: [png] },
      { type: 'tool_result', toolUseId: 'call_b', content: 'b.gif: GIF image, 1×1, 42 B', images: [gif] },
      { type: 'text', text: 'This one too:' },
      jpeg,
    ],
  },
];

describe('tool results with images, and a user’s own images in the same message', () => {
  it('chat: the tool messages, then one user message with each call’s images and then the user’s', async () => {
    mock.script({ text: 'ok' });
    const result = await collect(provider('chat')(request({ messages: history }), new AbortController().signal));
    expect(result.error).toBeUndefined();
    expect(mock.requests[0]!.body.messages.slice(-3)).toEqual([
      { role: 'tool', tool_call_id: 'call_a', content: 'a.png: PNG image, 3×2, 80 B' },
      { role: 'tool', tool_call_id: 'call_b', content: 'b.gif: GIF image, 1×1, 42 B' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The image the tool call call_a returned:' },
          { type: 'image_url', image_url: { url: url(png) } },
          { type: 'text', text: 'The image the tool call call_b returned:' },
          { type: 'image_url', image_url: { url: url(gif) } },
          { type: 'text', text: 'This one too:' },
          { type: 'image_url', image_url: { url: url(jpeg) } },
        ],
      },
    ]);
  });

  it('responses: each output carries its own image; the user’s follow as a message', async () => {
    mock.script({ text: 'ok' });
    const result = await collect(provider('responses')(request({ messages: history }), new AbortController().signal));
    expect(result.error).toBeUndefined();
    const input = mock.requests[0]!.body.input;
    expect(input.slice(-3)).toEqual([
      {
        type: 'function_call_output',
        call_id: 'call_a',
        output: [
          { type: 'input_text', text: 'a.png: PNG image, 3×2, 80 B' },
          { type: 'input_image', image_url: url(png), detail: 'auto' },
        ],
      },
      {
        type: 'function_call_output',
        call_id: 'call_b',
        output: [
          { type: 'input_text', text: 'b.gif: GIF image, 1×1, 42 B' },
          { type: 'input_image', image_url: url(gif), detail: 'auto' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'This one too:' },
          { type: 'input_image', image_url: url(jpeg), detail: 'auto' },
        ],
      },
    ]);
  });

  it('anthropic: each tool_result holds its text and image; the user’s text and image follow', async () => {
    mock.script({ text: 'ok' });
    const result = await collect(provider('anthropic')(request({ messages: history }), new AbortController().signal));
    expect(result.error).toBeUndefined();
    const last = mock.requests[0]!.body.messages.at(-1).content;
    expect(last.map((b: any) => b.type)).toEqual(['tool_result', 'tool_result', 'text', 'image']);
    expect(last[1].content).toEqual([
      { type: 'text', text: 'b.gif: GIF image, 1×1, 42 B' },
      { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: gif.data } },
    ]);
  });

  it('counts a result’s image at a fixed cost in both estimates, not by its base64', () => {
    const big: ImageBlock = { ...png, data: 'A'.repeat(4_000_000) };
    const withImage = (image: ImageBlock): Message[] => [
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'x', content: 'x.png', images: [image] }] },
    ];
    expect(estimateTokens(withImage(big))).toBe(estimateTokens(withImage(png)));
    expect(estimateTokens(withImage(png))).toBeGreaterThanOrEqual(1_600);
    const sized = (image: ImageBlock) => new RequestSizer().estimate(request({ messages: withImage(image), tools: [] })).input;
    expect(sized(big)).toBe(sized(png));
    expect(sized(png)).toBeGreaterThanOrEqual(1_600);
    expect(sized(png)).toBeLessThan(2_000);
    // A request sends the newest 20 images: 90 in the history count as 20 in a job's budget too.
    const results = (count: number): Message[] => Array.from({ length: count }, () => withImage(png)[0]!);
    const many = (count: number) => new RequestSizer().estimate(request({ messages: results(count), tools: [] })).input;
    expect(many(90) - many(20)).toBeLessThan(70 * 100);
    expect(many(20) - many(19)).toBeGreaterThanOrEqual(1_600);
  });
});

describe('the mock refuses tool-result images the real APIs refuse', () => {
  const post = (path: string, body: unknown) =>
    fetch(`${mock.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const call = {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
  };

  it.each([
    [
      'chat: an image in a tool message',
      '/v1/chat/completions',
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'hi' },
          call,
          { role: 'tool', tool_call_id: 'c1', content: [{ type: 'image_url', image_url: { url: url(png) } }] },
        ],
      },
      'image_url parts are only allowed in user messages',
    ],
    [
      'responses: an output image that is no image',
      '/v1/responses',
      {
        model: 'm',
        input: [
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
          {
            type: 'function_call_output',
            call_id: 'c1',
            output: [{ type: 'input_image', image_url: 'data:image/png;base64,aGVsbG8=' }],
          },
        ],
      },
      'unsupported image',
    ],
    [
      'responses: an output part of an unknown type',
      '/v1/responses',
      {
        model: 'm',
        input: [
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: [{ type: 'image', data: png.data }] },
        ],
      },
      "expected one of 'input_text', 'input_image' or 'input_file'",
    ],
    [
      'anthropic: an empty text beside the image',
      '/v1/messages',
      {
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't1',
                content: [
                  { type: 'text', text: '' },
                  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.data } },
                ],
              },
            ],
          },
        ],
      },
      'text content blocks must be non-empty',
    ],
  ])('%s', async (_, path, body, error) => {
    mock.script({ text: 'never sent' });
    const response = await post(path, body);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(error);
    expect(mock.pending()).toBe(1);
  });

  it('takes a function_call_output whose output is text and a real image', async () => {
    mock.script({ text: 'ok' });
    const response = await post('/v1/responses', {
      model: 'm',
      input: [
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        {
          type: 'function_call_output',
          call_id: 'c1',
          output: [
            { type: 'input_text', text: 'a.png' },
            { type: 'input_image', image_url: url(png) },
          ],
        },
      ],
    });
    expect(response.status).toBe(200);
  });
});
