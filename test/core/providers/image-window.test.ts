/**
 * imageWindow: a request sends the newest images only (MAX_SENT_IMAGES, MAX_SENT_IMAGE_BASE64),
 * older ones named instead, and the history it was given stays as it was.
 */
import { describe, expect, it } from 'vitest';
import { imageLabel, imageSummary } from '../../../src/core/providers/image-block.js';
import {
  IMAGE_DROP_STEP,
  MAX_SENT_IMAGE_BASE64,
  MAX_SENT_IMAGES,
  NOT_SENT_AGAIN,
  type TrimmedCopies,
  imageWindow,
  notTaken,
  withImageWindow,
} from '../../../src/core/providers/image-window.js';
import type { ImageBlock, Message, ModelRequest, StreamFn, ToolResultBlock } from '../../../src/core/providers/types.js';
import { request } from '../../support/stream-helpers.js';

/** An image whose base64 is `length` characters, told apart by `tag` (the function never decodes it). */
const image = (tag: number, length = 8): ImageBlock => ({
  type: 'image',
  mediaType: 'image/png',
  data: tag.toString(36).padStart(length, 'A').slice(-length),
});
const prompt = (...images: ImageBlock[]): Message => ({ role: 'user', content: [{ type: 'text', text: 'look' }, ...images] });
const answer: Message = { role: 'assistant', content: [{ type: 'text', text: 'seen' }] };
const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: {} }] });
const result = (id: string, ...images: ImageBlock[]): Message => ({
  role: 'user',
  content: [{ type: 'tool_result', toolUseId: id, content: `${id}.png: PNG image`, images }],
});
const notSent = (block: ImageBlock) => imageLabel(imageSummary(block)) + NOT_SENT_AGAIN;

/** A prompt with one image, then an answer, `count` times. */
function prompts(count: number, length?: number): Message[] {
  return Array.from({ length: count }, (_, i) => [prompt(image(i, length)), answer]).flat();
}

/** Every image a request would send, in order. */
function sent(messages: Message[]): ImageBlock[] {
  return messages.flatMap((m) =>
    m.content.flatMap((b) => (b.type === 'image' ? [b] : b.type === 'tool_result' ? (b.images ?? []) : [])),
  );
}

/** The limits one image at a time (no drop step): the window's mechanics, image by image. */
const EXACT = { maxImages: MAX_SENT_IMAGES, maxBase64: MAX_SENT_IMAGE_BASE64 };

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

describe('imageWindow', () => {
  it('gives back the very array when every image fits', () => {
    const history = prompts(MAX_SENT_IMAGES);
    expect(imageWindow(history)).toBe(history);
    expect(imageWindow([])).toEqual([]);
  });

  it('names the oldest of 21 images instead of sending it; every other message is the same object', () => {
    const history = prompts(MAX_SENT_IMAGES + 1);
    const window = imageWindow(history, { limits: EXACT });
    expect(window).not.toBe(history);
    expect(sent(window)).toEqual(sent(history).slice(1));
    expect(window[0]!.content).toEqual([
      { type: 'text', text: 'look' },
      { type: 'text', text: '[image: 6 B png]' + NOT_SENT_AGAIN },
    ]);
    expect(window.slice(1).every((message, i) => message === history[i + 1])).toBe(true);
  });

  it('counts user and tool images together, dropping a result’s images with a note after its text', () => {
    // 12 rounds, each a tool result with an image and a prompt with one: 24 images, the oldest 4 go.
    const history: Message[] = [prompt()];
    for (let i = 0; i < 12; i++) history.push(call(`c${i}`), result(`c${i}`, image(2 * i)), answer, prompt(image(2 * i + 1)));
    const window = imageWindow(history, { limits: EXACT });
    expect(sent(window)).toEqual(sent(history).slice(4));
    const [firstResult, firstPrompt] = [window[2]!.content[0] as ToolResultBlock, window[4]!.content[1]];
    expect(firstResult).toEqual({ type: 'tool_result', toolUseId: 'c0', content: `c0.png: PNG image\n${notSent(image(0))}` });
    expect(firstPrompt).toEqual({ type: 'text', text: notSent(image(1)) });
    expect((window[6]!.content[0] as ToolResultBlock).content).toContain(NOT_SENT_AGAIN);
    expect(window[8]!.content[1]).toEqual({ type: 'text', text: notSent(image(3)) });
    expect(window[10]).toBe(history[10]);
  });

  it('keeps to the base64 budget with a few large images, and the window stays whole', () => {
    const quarter = MAX_SENT_IMAGE_BASE64 / 4;
    // Newest last: four quarters fill the budget exactly; the small one before them is not sent
    // either, though it would fit, so the images sent are always the newest in a row.
    const history = [prompt(image(1, quarter)), answer, prompt(image(2, 8)), answer, ...prompts(4, quarter)];
    const window = imageWindow(history);
    expect(sent(window).map((b) => b.data.length)).toEqual([quarter, quarter, quarter, quarter]);
    expect([window[0]!.content[1], window[2]!.content[1]]).toEqual([
      { type: 'text', text: `[image: 3.8 MB png]${NOT_SENT_AGAIN}` },
      { type: 'text', text: `[image: 6 B png]${NOT_SENT_AGAIN}` },
    ]);
    // One character more than the budget: the oldest of the four goes too.
    const over = [...history.slice(0, 4), prompt(image(9, quarter + 4)), answer, ...prompts(3, quarter)];
    expect(sent(imageWindow(over))).toHaveLength(3);
  });

  it('keeps the newest images of a message that holds several, in a prompt and in a result', () => {
    const history: Message[] = [
      prompt(image(0), image(1), image(2), image(3)),
      call('c'),
      result('c', image(4), image(5)),
      answer,
      ...prompts(MAX_SENT_IMAGES - 1),
    ];
    // 25 images: the first 4 of the prompt and the older image of the result go.
    const window = imageWindow(history, { limits: EXACT });
    expect(window[0]!.content.map((b) => b.type)).toEqual(['text', 'text', 'text', 'text', 'text']);
    const partial = window[2]!.content[0] as ToolResultBlock;
    expect(partial.images).toEqual([image(5)]);
    expect(partial.content).toBe(`c.png: PNG image\n${notSent(image(4))}`);
    // 22 images: the cut falls inside the prompt, its last two images are sent.
    const fewer = [history[0]!, ...history.slice(6)];
    expect(imageWindow(fewer, { limits: EXACT })[0]!.content).toEqual([
      { type: 'text', text: 'look' },
      { type: 'text', text: notSent(image(0)) },
      { type: 'text', text: notSent(image(1)) },
      image(2),
      image(3),
    ]);
  });

  it('changes nothing it was given', () => {
    const history: Message[] = [
      prompt(image(0), image(1)),
      call('c'),
      { ...result('c', image(2), image(3)), noticeFor: ['job-1'] },
      ...prompts(MAX_SENT_IMAGES),
    ];
    const before = structuredClone(history);
    // Frozen: a write anywhere in it throws (modules are strict).
    const window = imageWindow(deepFreeze(history), { limits: EXACT });
    expect(history).toEqual(before);
    expect(sent(window)).toHaveLength(MAX_SENT_IMAGES);
    expect(window[2]!.noticeFor).toEqual(['job-1']);
    expect((window[2]!.content[0] as ToolResultBlock).images).toBeUndefined();
  });

  it('past 20 images, leaves the oldest out ten at a time, so the cut moves once per ten new images', () => {
    expect(IMAGE_DROP_STEP).toBe(10);
    const cut = (count: number) => {
      const history = prompts(count);
      const window = imageWindow(history);
      // From here on every message is sent as the history holds it (the prompt cache's prefix).
      const untouchedFrom = window.reduce((last, message, i) => (message === history[i] ? last : i + 1), 0);
      return { sent: sent(window).length, untouchedFrom };
    };
    expect(cut(20)).toEqual({ sent: 20, untouchedFrom: 0 });
    // 21 to 30: the oldest ten are named, 11 to 20 sent, and the cut stays after the 10th prompt.
    expect(cut(21)).toEqual({ sent: 11, untouchedFrom: 19 });
    expect(cut(30)).toEqual({ sent: 20, untouchedFrom: 19 });
    expect(cut(31)).toEqual({ sent: 11, untouchedFrom: 39 });
    // The size budget still cuts image by image.
    const quarter = MAX_SENT_IMAGE_BASE64 / 4;
    expect(sent(imageWindow(prompts(6, quarter)))).toHaveLength(4);
  });

  it('with copies, the same cut gives back the same object, so a backend serializes it once', () => {
    const copies: TrimmedCopies = new WeakMap();
    const history = prompts(MAX_SENT_IMAGES + 2);
    const first = imageWindow(history, { copies });
    const again = imageWindow(history, { copies });
    expect(again[0]).toBe(first[0]);
    expect(again[2]).toBe(first[2]);
    const grown = imageWindow([...history, prompt(image(99))], { copies });
    expect(grown[0]).toBe(first[0]);
    expect(grown[4]).not.toBe(history[4]);
    // A cut inside one message makes a new copy for it.
    const several = [prompt(image(0), image(1)), answer];
    const one = imageWindow(several, { copies, limits: { maxImages: 1, maxBase64: 100 } });
    const none = imageWindow(several, { copies, limits: { maxImages: 0, maxBase64: 100 } });
    expect(sent(one)).toEqual([image(1)]);
    expect(sent(none)).toEqual([]);
  });
});

describe('withImageWindow', () => {
  function recording(): { stream: StreamFn; seen: ModelRequest[] } {
    const seen: ModelRequest[] = [];
    const stream: StreamFn = async function* (req) {
      seen.push(req);
      yield* [];
    };
    return { stream, seen };
  }

  it('sends a model that takes no images their labels, naming the model each request is for', async () => {
    const { stream, seen } = recording();
    const windowed = withImageWindow(stream, EXACT, (model) => model.startsWith('vision'));
    const history = prompts(2);
    for (const model of ['local-a', 'local-b', 'vision-1'])
      for await (const _ of windowed(request({ model, messages: history }), new AbortController().signal));
    const texts = (req: ModelRequest) => JSON.stringify(req.messages);
    expect(sent(seen[0]!.messages)).toEqual([]);
    expect(texts(seen[0]!)).toContain(notTaken('local-a'));
    expect(texts(seen[1]!)).toContain(notTaken('local-b'));
    expect(texts(seen[1]!)).not.toContain('local-a');
    expect(seen[2]!.messages).toBe(history);
  });

  it('passes a request that fits as it is, and one that does not with its newest images', async () => {
    const { stream, seen } = recording();
    const windowed = withImageWindow(stream, EXACT);
    const small = request({ messages: prompts(2) });
    const large = request({ messages: prompts(MAX_SENT_IMAGES + 5) });
    for (const req of [small, large]) for await (const _ of windowed(req, new AbortController().signal));
    expect(seen[0]).toBe(small);
    expect(sent(seen[1]!.messages)).toEqual(sent(large.messages).slice(5));
    expect({ ...seen[1], messages: large.messages }).toEqual(large);
    expect(sent(large.messages)).toHaveLength(MAX_SENT_IMAGES + 5);
  });
});
