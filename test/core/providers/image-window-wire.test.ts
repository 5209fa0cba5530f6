/**
 * The image window on each wire, through createProvider, the real SDK clients and the mock
 * provider: a history of 25 images (tool results' and a user's own, alternately) is 5 past the
 * limit of 20, so the oldest 10 go (IMAGE_DROP_STEP at a time): the newest 15 are sent, the 10
 * older ones named in their place, and the history keeps all 25.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/core/providers/create.js';
import { imageLabel, imageSummary } from '../../../src/core/providers/image-block.js';
import { NOT_SENT_AGAIN, notTaken } from '../../../src/core/providers/image-window.js';
import { takesImages } from '../../../src/core/providers/models.js';
import type { ImageBlock, Message } from '../../../src/core/providers/types.js';
import { b64, pngImage } from '../../support/images.js';
import { type ImageApi, TAKES_IMAGES, imageProvider } from '../../support/image-provider.js';
import { type MockProvider, startMockProvider } from '../../support/mock-provider.js';
import { collect, request } from '../../support/stream-helpers.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const provider = (api: ImageApi) => imageProvider(mock, api);

/** 25 screenshots, each a different width, so each one's data (and the older ones' labels) differ. */
const shots: ImageBlock[] = Array.from({ length: 25 }, (_, i) => ({
  type: 'image',
  mediaType: 'image/png',
  data: b64(pngImage(10 * (i + 1), 4)),
}));

/** Each screenshot read by a tool call (even ones) or pasted by the user after the call's result (odd ones). */
function history(): Message[] {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Look at the screenshots' }] }];
  shots.forEach((shot, i) => {
    const id = `call_${i}`;
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: { path: `s${i}.png` } }] });
    const fromTool = i % 2 === 0;
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: id, content: `s${i}.png: PNG image`, ...(fromTool ? { images: [shot] } : {}) },
        ...(fromTool ? [] : [{ type: 'text' as const, text: `and s${i}:` }, shot]),
      ],
    });
  });
  return messages;
}

/** Every image's base64 in the body, in order, whatever the API's spelling. */
function sentImages(body: unknown): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      const url = /^data:image\/png;base64,(.*)$/.exec(value);
      if (url) found.push(url[1]!);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      if (record.type === 'base64' && typeof record.data === 'string') found.push(record.data);
      else Object.values(record).forEach(walk);
    }
  };
  walk(body);
  return found;
}

/** 25 images, 5 past the limit: one step of 10 goes. */
const SENT = 15;

describe('a history of 25 images on each wire', () => {
  it.each<ImageApi>(['anthropic', 'chat', 'responses'])('%s: sends the newest 15, the older ones named', async (api) => {
    mock.script({ text: 'ok' });
    const messages = history();
    const before = structuredClone(messages);
    const result = await collect(provider(api)(request({ messages }), new AbortController().signal));
    expect(result.error).toBeUndefined();
    const body = mock.requests[0]!.body;
    expect(sentImages(body)).toEqual(shots.slice(-SENT).map((shot) => shot.data));
    const text = JSON.stringify(body);
    for (const old of shots.slice(0, 25 - SENT))
      expect(text).toContain(JSON.stringify(imageLabel(imageSummary(old)) + NOT_SENT_AGAIN).slice(1, -1));
    expect(text.split(NOT_SENT_AGAIN).length - 1).toBe(25 - SENT);
    // The history the conversation owns still holds every image.
    expect(messages).toEqual(before);
  });

  it('text tool mode: a read image left out is noted inside its <tool_result> text', async () => {
    mock.script({ text: 'ok' });
    const stream = createProvider({
      provider: 'openai',
      apiKey: 'sk-test',
      baseURL: mock.openaiBaseURL,
      openaiApi: 'chat',
      toolMode: 'text',
      models: TAKES_IMAGES,
    });
    const result = await collect(stream(request({ messages: history() }), new AbortController().signal));
    expect(result.error).toBeUndefined();
    const body = mock.requests[0]!.body;
    expect(sentImages(body)).toHaveLength(SENT);
    const note = imageLabel(imageSummary(shots[0]!)) + NOT_SENT_AGAIN;
    expect(JSON.stringify(body)).toContain(JSON.stringify(`s0.png: PNG image\n${note}\n</tool_result>`).slice(1, -1));
  });
});

describe('a model that takes no images', () => {
  const send = async (options: { model: string; models?: Record<string, { images: boolean }>; baseURL?: string }) => {
    mock.reset();
    mock.script({ text: 'ok' });
    const stream = createProvider({
      provider: 'openai',
      apiKey: 'sk-test',
      baseURL: options.baseURL ?? mock.openaiBaseURL,
      openaiApi: 'chat',
      ...(options.models ? { models: options.models } : {}),
    });
    const result = await collect(
      stream(request({ model: options.model, messages: history().slice(0, 5) }), new AbortController().signal),
    );
    expect(result.error).toBeUndefined();
    return mock.requests[0]!.body;
  };

  it('on a server other than OpenAI’s (Ollama, vLLM), an unknown model is sent each image’s label instead', async () => {
    const body = await send({ model: 'qwen2.5-coder' });
    expect(sentImages(body)).toEqual([]);
    const text = JSON.stringify(body);
    expect(text).toContain(JSON.stringify(imageLabel(imageSummary(shots[0]!)) + notTaken('qwen2.5-coder')).slice(1, -1));
    expect(text).toContain(JSON.stringify(imageLabel(imageSummary(shots[1]!)) + notTaken('qwen2.5-coder')).slice(1, -1));
  });

  it('the settings say which do, and the catalogue knows its own', async () => {
    expect(sentImages(await send({ model: 'llava', models: { llava: { images: true } } }))).toHaveLength(2);
    expect(sentImages(await send({ model: 'gpt-4o' }))).toHaveLength(2);
    expect(sentImages(await send({ model: 'o3-mini' }))).toEqual([]);
  });

  it('decides by the model and the server', () => {
    expect(takesImages('claude-anything-new', { provider: 'anthropic', baseURL: 'https://gateway.example/v1' })).toBe(true);
    expect(takesImages('gpt-9', { provider: 'openai' })).toBe(true);
    expect(takesImages('gpt-9', { provider: 'openai', baseURL: 'https://eu.api.openai.com/v1' })).toBe(true);
    expect(takesImages('gpt-9', { provider: 'openai', baseURL: 'http://localhost:11434/v1' })).toBe(false);
    expect(takesImages('gpt-4o', { provider: 'openai', baseURL: 'https://openrouter.ai/api/v1' })).toBe(true);
    expect(takesImages('gpt-4o', { provider: 'openai', models: { 'gpt-4o': { images: false } } })).toBe(false);
  });
});
