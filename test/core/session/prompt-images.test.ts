import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { promptImages } from '../../../src/core/commands/prompt-images.js';
import { imageBlock, ImageError } from '../../../src/core/providers/image-block.js';
import type { ImageBlock, Message } from '../../../src/core/providers/types.js';
import { compactHistory, estimateTokens, renderConversation } from '../../../src/core/session/compaction.js';
import { fakeStream } from '../../support/fake-stream.js';
import { b64, jpegImage, pngImage } from '../../support/images.js';
import { testDirs, useTestSessions } from '../../support/test-session.js';

const open = useTestSessions();
const signal = () => new AbortController().signal;
const png = (width = 3, height = 2): ImageBlock => imageBlock({ data: b64(pngImage(width, height)) });

describe('a prompt with images', () => {
  it('sends its images before its text, tells the stream of them without their data, and keeps them on resume', async () => {
    const dirs = testDirs();
    const image = png();
    const first = await open(() => ({ text: 'a red square' }), { dirs });
    await first.session.submitPrompt('what is this?', signal(), { images: [image] });
    expect(first.stream.requests[0]!.messages[0]).toEqual({
      role: 'user',
      content: [image, { type: 'text', text: 'what is this?' }],
    });
    const submit = first.events.find((event) => event.type === 'submit');
    expect(submit).toEqual({
      type: 'submit',
      prompt: 'what is this?',
      images: [{ mediaType: 'image/png', bytes: pngImage(3, 2).length }],
    });

    // The transcript names the image, whose bytes are in the session folder; a resumed session sends it again, byte for byte.
    expect(readFileSync(first.session.paths.transcript, 'utf8')).not.toContain(image.data);
    const second = await open(() => ({ text: 'still red' }), { dirs, flags: { continue: true } });
    expect(second.session.warnings).toEqual([]);
    expect(second.session.session.messages()[0]).toEqual({
      role: 'user',
      content: [image, { type: 'text', text: 'what is this?' }],
    });
    await second.submit('and now?');
    expect(second.stream.requests[0]!.messages[0]!.content[0]).toEqual(image);
  });

  it('takes images alone, without text', async () => {
    const { session, stream } = await open(() => ({ text: 'ok' }));
    await session.submitPrompt('', signal(), { images: [png()] });
    expect(stream.requests[0]!.messages[0]!.content.map((b) => b.type)).toEqual(['image']);
  });

  it('refuses more than 20 images before anything joins the history', async () => {
    const { session, stream } = await open(() => ({ text: 'ok' }));
    const images = Array.from({ length: 21 }, () => png());
    await expect(session.submitPrompt('many', signal(), { images })).rejects.toThrow(ImageError);
    expect(session.session.messages()).toEqual([]);
    expect(stream.requests).toEqual([]);
  });

  it('drops, on resume, an image a hand edit broke, and says so', async () => {
    const dirs = testDirs();
    const first = await open(() => ({ text: 'ok' }), { dirs });
    await first.submit('start');
    const broken = {
      role: 'user',
      content: [
        { type: 'image', mediaType: 'image/png', data: b64(jpegImage()) },
        { type: 'text', text: 'look' },
      ],
    };
    appendFileSync(
      first.session.paths.transcript,
      `${JSON.stringify({ type: 'message', message: broken, at: new Date().toISOString() })}\n`,
    );
    const second = await open(() => ({ text: 'ok' }), { dirs, flags: { continue: true } });
    expect(second.session.warnings.join('\n')).toContain('1 invalid, empty or misplaced block(s) dropped');
    expect(second.session.session.messages().at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'look' }] });
  });
});

describe('@path images in a typed prompt', () => {
  it('attaches each image file it names, in the workspace, once; the text stays as typed', async () => {
    const { session, stream, cwd } = await open(() => ({ text: 'ok' }));
    mkdirSync(path.join(cwd, 'shots'));
    writeFileSync(path.join(cwd, 'shots', 'a.png'), pngImage(4, 4));
    writeFileSync(path.join(cwd, 'b.JPG'), jpegImage());
    const text = 'compare @shots/a.png with (@b.JPG), then @shots/a.png again. mail me@example.png';
    await session.submitPrompt(text, signal());
    const sent = stream.requests[0]!.messages[0]!.content;
    expect(sent).toEqual([
      { type: 'image', mediaType: 'image/png', data: b64(pngImage(4, 4)) },
      { type: 'image', mediaType: 'image/jpeg', data: b64(jpegImage()) },
      { type: 'text', text },
    ]);
  });

  it('looks for images only in what the user typed, when a front end says which part that is (ACP)', async () => {
    const { session, stream, cwd } = await open(() => ({ text: 'ok' }));
    writeFileSync(path.join(cwd, 'a.png'), pngImage(4, 4));
    writeFileSync(path.join(cwd, 'secret.png'), pngImage(2, 2));
    // The editor embedded a file whose text names secret.png: that part is the repository's.
    const text = 'look at @a.png\n```notes.md\nsee @secret.png\n```';
    await session.submitPrompt(text, signal(), { typed: 'look at @a.png' });
    expect(stream.requests[0]!.messages[0]!.content).toEqual([
      { type: 'image', mediaType: 'image/png', data: b64(pngImage(4, 4)) },
      { type: 'text', text },
    ]);
  });

  it('reads an image outside the workspace, as read_file may: the prompt is the user’s', async () => {
    const { session, stream, cwd } = await open(() => ({ text: 'ok' }));
    writeFileSync(path.join(path.dirname(cwd), 'outside.png'), pngImage());
    await session.submitPrompt('see @../outside.png', signal());
    expect(stream.requests[0]!.messages[0]!.content.map((b) => b.type)).toEqual(['image', 'text']);
  });

  it('tells why a named image was not attached, and runs the turn without it', async () => {
    const { session, stream, cwd, events } = await open(() => ({ text: 'ok' }), {
      flags: { permissions: { deny: ['Read(./secret.png)'] } },
    });
    writeFileSync(path.join(cwd, 'fake.png'), 'not an image at all');
    writeFileSync(path.join(cwd, 'secret.png'), pngImage());
    mkdirSync(path.join(cwd, 'dir.png'));
    await session.submitPrompt('see @fake.png @missing.png @secret.png @dir.png', signal());
    expect(stream.requests[0]!.messages[0]!.content.map((b) => b.type)).toEqual(['text']);
    const notices = events.flatMap((e) => (e.type === 'notice' ? [e.text] : []));
    expect(notices).toContain(
      '@fake.png: its bytes are not a PNG, JPEG, GIF or WebP image (the only types a model takes); it was not attached',
    );
    expect(notices).toContain('@missing.png was not attached: there is no such file');
    expect(notices.find((n) => n.startsWith('@secret.png was not attached:'))).toMatch(
      /denied by the permission rule "Read\(\.\/secret\.png\)"/,
    );
    expect(notices).toContain('@dir.png was not attached: it is not a file (directory)');
  });

  it('tries no more than 20 files for a prompt that names thousands, and says the rest in one line', async () => {
    const reads: string[] = [];
    const notices: string[] = [];
    const text = Array.from({ length: 5000 }, (_, i) => `@shot-${i}.png`).join(' ');
    const read = (file: string) => {
      reads.push(file);
      return Promise.resolve(`@${file} was not attached: there is no such file`);
    };
    const images = await promptImages(text, { read, room: 20, notify: (line) => notices.push(line) }, signal());
    expect(images).toEqual([]);
    expect(reads).toHaveLength(20);
    expect(notices).toHaveLength(21);
    expect(notices.at(-1)).toBe(
      '@shot-20.png, @shot-21.png, @shot-22.png, and 4977 more not attached: a prompt carries at most 20 images',
    );
  });

  it('attaches no more than 20 with the images given', async () => {
    const { session, stream, cwd, events } = await open(() => ({ text: 'ok' }));
    for (let i = 0; i < 3; i++) writeFileSync(path.join(cwd, `s${i}.png`), pngImage());
    const given = Array.from({ length: 18 }, () => png(1, 1));
    await session.submitPrompt('@s0.png @s1.png @s2.png', signal(), { images: given });
    expect(stream.requests[0]!.messages[0]!.content.filter((b) => b.type === 'image')).toHaveLength(20);
    expect(events.some((e) => e.type === 'notice' && e.text === '@s2.png not attached: a prompt carries at most 20 images')).toBe(
      true,
    );
  });

  /** A project with `shot.png`, `secret.png` and the command `name` whose body is `body`. */
  const withCommand = (name: string, body: string) => {
    const dirs = testDirs();
    mkdirSync(path.join(dirs.cwd, '.claude', 'commands'), { recursive: true });
    writeFileSync(path.join(dirs.cwd, '.claude', 'commands', `${name}.md`), body);
    writeFileSync(path.join(dirs.cwd, 'shot.png'), pngImage(4, 4));
    writeFileSync(path.join(dirs.cwd, 'secret.png'), pngImage());
    return dirs;
  };
  const images = (message: Message) => message.content.filter((b) => b.type === 'image');

  it('attaches an image the user typed as a custom command’s argument once, as a plain prompt does', async () => {
    // The expansion names the argument three times: it is still one image, read once.
    const dirs = withCommand('review', 'Review $ARGUMENTS closely, then $1 again.\n\n$ARGUMENTS');
    const { session, stream } = await open(() => ({ text: 'ok' }), { dirs });
    await session.submitPrompt('/review @shot.png', signal());
    await session.submitPrompt('@shot.png and @shot.png', signal());
    const [command, plain] = [stream.requests[0]!.messages[0]!, stream.requests[1]!.messages.at(-1)!];
    expect(images(command)).toEqual([{ type: 'image', mediaType: 'image/png', data: b64(pngImage(4, 4)) }]);
    expect(images(plain)).toEqual(images(command));
    expect(command.content.at(-1)).toEqual({
      type: 'text',
      text: 'Review @shot.png closely, then @shot.png again.\n\n@shot.png',
    });
  });

  it('passes a command argument’s image through the same gate as a plain prompt’s', async () => {
    const dirs = withCommand('review', 'Review $ARGUMENTS');
    const { session, stream, events } = await open(() => ({ text: 'ok' }), {
      dirs,
      flags: { permissions: { deny: ['Read(./secret.png)'] } },
    });
    await session.submitPrompt('/review @secret.png and @shot.png', signal());
    expect(images(stream.requests[0]!.messages[0]!)).toEqual([
      { type: 'image', mediaType: 'image/png', data: b64(pngImage(4, 4)) },
    ]);
    const notices = events.flatMap((e) => (e.type === 'notice' ? [e.text] : []));
    expect(notices.find((n) => n.startsWith('@secret.png was not attached:'))).toMatch(/denied by the permission rule/);
  });

  it('reads no image the command file’s body names: the body is the repository’s, not what the user typed', async () => {
    // `@shot.png,too` names no file, so the directive leaves it as text, where an image scan would still find shot.png.
    const dirs = withCommand('look', 'Look at @shot.png and @shot.png,too for $ARGUMENTS');
    const { session, stream } = await open(() => ({ text: 'ok' }), { dirs });
    await session.submitPrompt('/look the layout', signal());
    const sent = stream.requests[0]!.messages[0]!;
    expect(JSON.stringify(sent)).toContain('@shot.png,too');
    expect(images(sent)).toEqual([]);
  });
});

describe('compaction and images', () => {
  const big = imageBlock({ data: b64(Buffer.concat([pngImage(), Buffer.alloc(3_000_000)])) });
  const history: Message[] = [
    { role: 'user', content: [big, { type: 'text', text: 'what is on this screen?' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'A dialog.' }] },
    { role: 'user', content: [{ type: 'text', text: 'next' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    { role: 'user', content: [{ type: 'text', text: 'last' }] },
  ];

  it('counts an image as a fixed ~1,600 tokens, not its 4 MB of base64', () => {
    const withImage = estimateTokens(history.slice(0, 1));
    const without = estimateTokens([{ role: 'user', content: [{ type: 'text', text: 'what is on this screen?' }] }]);
    expect(withImage - without).toBe(1_600);
  });

  it('names the image in the text the summary is written from, and sends the summary call no image', async () => {
    expect(renderConversation(history.slice(0, 2))).toBe(
      'User: [image: 2.9 MB png]\n\nUser: what is on this screen?\n\nAssistant: A dialog.',
    );
    const stream = fakeStream([{ text: 'The user showed a dialog.' }]);
    const result = await compactHistory(
      { history, stream, model: 'm', maxTokens: 1000, system: 's', keepRecentTurns: 1 },
      signal(),
    );
    expect(JSON.stringify(stream.requests[0]!.messages)).not.toContain(big.data.slice(0, 100));
    expect(result.removedMessages).toBe(4);
  });
});
