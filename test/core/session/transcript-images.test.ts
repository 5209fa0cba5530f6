/**
 * Images in transcripts: each image's base64 stored once beside the transcript, named by its
 * SHA-256, the line holding a reference; read back whole, or, when the file is missing, changed or
 * named by a reference that is not a hash, as a note and a warning, never a crash or a read
 * outside the folder.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImageBlock, Message } from '../../../src/core/providers/types.js';
import {
  type NewTranscriptMeta,
  TranscriptWriter,
  keyVariableForms,
  readTranscript,
} from '../../../src/core/session/transcript.js';
import { b64, pngImage } from '../../support/images.js';
import { testDirs, useTestSessions } from '../../support/test-session.js';

const meta: NewTranscriptMeta = { sessionId: 's1', cwd: '/repo', provider: 'anthropic', model: 'claude-sonnet-4-5' };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A transcript path in a fresh session folder. */
function sessionFile(): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-images-'));
  return { dir, file: path.join(dir, 'transcript.jsonl') };
}

const image = (data: string): ImageBlock => ({ type: 'image', mediaType: 'image/png', data });
const userImage = (data: string): Message => ({
  role: 'user',
  content: [{ type: 'text', text: 'what is this?' }, image(data)],
});
const readResult = (data: string): Message => ({
  role: 'user',
  content: [{ type: 'tool_result', toolUseId: 'call_1', content: 'shot.png: PNG image, 3×2, 73 B', images: [image(data)] }],
});
/** Base64 of about `bytes` bytes, different for each `seed`: screenshots are large. */
const bigData = (bytes: number, seed = 1) => Buffer.alloc(bytes, seed).toString('base64');

function lines(file: string): any[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

describe('images in a transcript', () => {
  it('stores each image once in images/<sha256>.b64 (0600) and reads a user image and a tool result image back equal', () => {
    const { dir, file } = sessionFile();
    const writer = new TranscriptWriter(file, meta);
    const shot = bigData(3 * 1024 * 1024);
    const png = b64(pngImage(3, 2));
    const history = [
      userImage(shot),
      { role: 'assistant', content: [{ type: 'text', text: 'A screen.' }] } as Message,
      readResult(png),
    ];
    for (const message of history) writer.append(message);

    // The lines hold references, not 4 MB of base64.
    expect(statSync(file).size).toBeLessThan(2_000);
    expect(lines(file)[1].message.content[1]).toEqual({ type: 'image', mediaType: 'image/png', ref: sha256(shot) });
    expect(lines(file)[3].message.content[0].images).toEqual([{ type: 'image', mediaType: 'image/png', ref: sha256(png) }]);
    const images = path.join(dir, 'images');
    expect(readdirSync(images).sort()).toEqual([`${sha256(shot)}.b64`, `${sha256(png)}.b64`].sort());
    expect(readFileSync(path.join(images, `${sha256(shot)}.b64`), 'utf8')).toBe(shot);
    expect(statSync(path.join(images, `${sha256(shot)}.b64`)).mode & 0o777).toBe(0o600);
    expect(statSync(images).mode & 0o077).toBe(0);

    const read = readTranscript(file);
    expect(read.history).toEqual(history);
    expect(read.warnings).toEqual([]);
  });

  it('stores the same image once however often it is written, by this writer or the next', () => {
    const { dir, file } = sessionFile();
    const shot = bigData(100_000);
    new TranscriptWriter(file, meta).append(userImage(shot));
    const again = new TranscriptWriter(file, meta);
    again.append(readResult(shot));
    again.append(userImage(shot));
    expect(readdirSync(path.join(dir, 'images'))).toEqual([`${sha256(shot)}.b64`]);
    expect(readTranscript(file).history).toEqual([userImage(shot), readResult(shot), userImage(shot)]);
  });

  it("keeps a sub-agent's images in the session folder's images/, where the parent's are", () => {
    const { dir, file } = sessionFile();
    const shot = bigData(10_000);
    new TranscriptWriter(file, meta).append(userImage(shot));
    const child = path.join(dir, 'agents', 'sub-1.jsonl');
    new TranscriptWriter(child, { ...meta, sessionId: 's1/sub-1', jobId: 'sub-1' }).append(readResult(shot));
    expect(readdirSync(path.join(dir, 'images'))).toEqual([`${sha256(shot)}.b64`]);
    expect(readdirSync(path.join(dir, 'agents'))).toEqual(['sub-1.jsonl']);
    expect(readTranscript(child).history).toEqual([readResult(shot)]);
  });

  it('redacts an API key inside an image as it does on every line', () => {
    const { dir, file } = sessionFile();
    const env = { ANTHROPIC_API_KEY: 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123' };
    const data = Buffer.from(`PNG tEXt key=${env.ANTHROPIC_API_KEY}; more bytes`).toString('base64');
    new TranscriptWriter(file, meta, { env }).append(userImage(data));
    const [blob] = readdirSync(path.join(dir, 'images'));
    const stored = readFileSync(path.join(dir, 'images', blob!), 'utf8');
    expect(stored).toContain('[redacted]');
    for (const form of keyVariableForms(env)) expect(stored).not.toContain(form);
    // Named by what it holds, so it reads back (as the redacted text, which repairHistory drops as no image).
    expect(blob).toBe(`${sha256(stored)}.b64`);
    expect(readTranscript(file).warnings).toEqual([]);
  });

  it('keeps an image inline when its file cannot be written, and says why', () => {
    const { dir, file } = sessionFile();
    writeFileSync(path.join(dir, 'images'), 'a file where the folder should be');
    const errors: string[] = [];
    const writer = new TranscriptWriter(file, meta, { onError: (error) => errors.push(error.message) });
    const png = b64(pngImage(3, 2));
    writer.append(readResult(png));
    expect(errors).toHaveLength(1);
    expect(lines(file)[1].message).toEqual(readResult(png));
    expect(readTranscript(file).history).toEqual([readResult(png)]);
  });
});

describe('reading images back', () => {
  function written(...messages: Message[]) {
    const { dir, file } = sessionFile();
    const writer = new TranscriptWriter(file, meta);
    for (const message of messages) writer.append(message);
    return { dir, file, blob: (data: string) => path.join(dir, 'images', `${sha256(data)}.b64`) };
  }

  it('puts a note and a warning where a missing image was: a text block for a user image, a line of the result for a tool image', () => {
    const png = b64(pngImage(3, 2));
    const other = bigData(1_000, 2);
    const { file, blob } = written(userImage(png), {
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'call_1', content: 'two shots', images: [image(other), image(png)] }],
    });
    rmSync(blob(png));
    const read = readTranscript(file);
    const note = `[image: image/png not found: images/${sha256(png)}.b64 is missing]`;
    expect(read.history).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'text', text: note },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 'call_1', content: `two shots\n${note}`, images: [image(other)] }],
      },
    ]);
    // One warning per image that is not there, the file read (and found missing) once.
    expect(read.warnings).toHaveLength(2);
    expect(read.warnings[0]).toContain(`images/${sha256(png)}.b64 is missing`);
  });

  it('treats a file whose bytes do not hash to its name as missing', () => {
    const png = b64(pngImage(3, 2));
    const { file, blob } = written(readResult(png));
    writeFileSync(blob(png), b64(pngImage(3, 2, [0, 0, 255])));
    const read = readTranscript(file);
    expect(read.history).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolUseId: 'call_1',
            content: `shot.png: PNG image, 3×2, 73 B\n[image: image/png not found: images/${sha256(png)}.b64 does not hold the image it is named for (it was changed)]`,
            images: [],
          },
        ],
      },
    ]);
    expect(read.warnings).toEqual([expect.stringContaining('does not hold the image it is named for')]);
  });

  it('does not follow a link or open a FIFO put where an image was', () => {
    const png = b64(pngImage(3, 2));
    const { dir, file, blob } = written(userImage(png));
    rmSync(blob(png));
    // The link points at a file that does hold the image: a followed link would read it back.
    writeFileSync(path.join(dir, 'elsewhere.b64'), png);
    symlinkSync(path.join(dir, 'elsewhere.b64'), blob(png));
    expect(readTranscript(file).warnings).toEqual([expect.stringContaining('is a symbolic link')]);
    rmSync(blob(png));
    // Opened, a FIFO would hold the read until a writer came.
    execFileSync('mkfifo', [blob(png)]);
    expect(readTranscript(file).warnings).toEqual([expect.stringContaining('is not a regular file')]);
  });

  it('refuses a reference that is not a SHA-256 without reading anything, whatever it names', () => {
    const { dir, file } = sessionFile();
    new TranscriptWriter(file, meta).append({ role: 'user', content: [{ type: 'text', text: 'hi' }] });
    // What a path-traversing reference would reach: it would read back as the image if it were read.
    mkdirSync(path.join(dir, 'images'));
    const outside = b64(pngImage(3, 2));
    writeFileSync(path.join(dir, 'secret.b64'), outside);
    const refs: unknown[] = ['../secret', '../../etc/passwd', `${'a'.repeat(64)}/../../secret`, 'A'.repeat(64), '', 42, null];
    const hostile = {
      type: 'message',
      message: {
        role: 'user',
        content: [
          ...refs.map((ref) => ({ type: 'image', mediaType: 'image/png', ref })),
          {
            type: 'tool_result',
            toolUseId: 'c',
            content: 'r',
            images: [{ type: 'image', mediaType: 'x\u001b[2J', ref: '../secret' }],
          },
        ],
      },
      at: '2026-01-01T00:00:00.000Z',
    };
    writeFileSync(file, `${JSON.stringify(hostile)}\n`, { flag: 'a' });
    const read = readTranscript(file);
    const refused = 'its reference is not a SHA-256 (64 hex digits), so no file was read';
    expect(read.history[1]).toEqual({
      role: 'user',
      content: [
        ...refs.map(() => ({ type: 'text', text: `[image: image/png not found: ${refused}]` })),
        // A type that is not one is not echoed.
        { type: 'tool_result', toolUseId: 'c', content: `r\n[image: image not found: ${refused}]`, images: [] },
      ],
    });
    expect(read.warnings).toHaveLength(refs.length + 1);
    for (const warning of read.warnings) expect(warning).toContain(refused);
    expect(JSON.stringify(read.history)).not.toContain(outside);
  });

  it('loads a transcript written with the images inline, as before', () => {
    const { dir, file } = sessionFile();
    const png = b64(pngImage(3, 2));
    const at = '2026-01-01T00:00:00.000Z';
    const records = [
      { type: 'meta', version: 1, ...meta, createdAt: at },
      { type: 'message', message: userImage(png), at },
      { type: 'message', message: readResult(png), at },
    ];
    writeFileSync(file, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    const read = readTranscript(file);
    expect(read.history).toEqual([userImage(png), readResult(png)]);
    expect(read.warnings).toEqual([]);
    // Appending to it goes on by reference, and both kinds read back.
    new TranscriptWriter(file, meta).append(userImage(png));
    expect(readTranscript(file).history).toEqual([userImage(png), readResult(png), userImage(png)]);
    expect(readdirSync(path.join(dir, 'images'))).toEqual([`${sha256(png)}.b64`]);
  });

  it('reads hand-edited blocks of any shape as they are, for the repair to judge', () => {
    const { file } = sessionFile();
    const at = '2026-01-01T00:00:00.000Z';
    const odd = [
      { role: 'assistant', content: [null, 7, 'text', { type: 'tool_result', images: null }] },
      { role: 'user', content: null },
    ];
    const records = [
      { type: 'meta', version: 1, ...meta, createdAt: at },
      ...odd.map((message) => ({ type: 'message', message, at })),
    ];
    writeFileSync(file, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    expect(readTranscript(file).history).toEqual(odd);
  });
});

describe('a resumed session', () => {
  const open = useTestSessions();
  const png = pngImage(3, 2);
  const result = (images: ImageBlock[], note = '') => ({
    type: 'tool_result',
    toolUseId: 'call_img',
    content: `shot.png: PNG image, 3×2, ${png.length} B${note}`,
    ...(images.length ? { images } : {}),
  });

  /** A session that read shot.png, closed, then the file overwritten: only the session folder has the image. */
  async function afterReading() {
    const dirs = testDirs();
    writeFileSync(path.join(dirs.cwd, 'shot.png'), png);
    const read = { toolCalls: [{ id: 'call_img', name: 'read_file', args: { path: 'shot.png' } }] };
    const first = await open((_, index) => (index === 0 ? read : { text: 'Red.' }), { dirs });
    expect((await first.submit('look at shot.png')).cause).toEqual({ kind: 'completed' });
    expect(first.stream.requests[1]!.messages[2]!.content).toEqual([result([image(b64(png))])]);
    await first.session.close();
    writeFileSync(path.join(dirs.cwd, 'shot.png'), 'overwritten');
    expect(readFileSync(first.session.paths.transcript, 'utf8')).not.toContain(b64(png));
    return { dirs, id: first.session.session.id, images: path.join(first.session.paths.dir, 'images') };
  }

  it('sends the image read_file returned again, from its file in the session folder', async () => {
    const { dirs, id } = await afterReading();
    const second = await open(() => ({ text: 'Still red.' }), { dirs, flags: { resume: id } });
    expect(second.session.warnings).toEqual([]);
    expect((await second.submit('and now?')).cause).toEqual({ kind: 'completed' });
    expect(second.stream.requests[0]!.messages[2]!.content).toEqual([result([image(b64(png))])]);
  });

  it('resumes without the image when its file is gone: the result says so, and so does a warning', async () => {
    const { dirs, id, images } = await afterReading();
    rmSync(images, { recursive: true });
    const second = await open(() => ({ text: 'It is gone.' }), { dirs, flags: { resume: id } });
    expect(second.session.warnings).toEqual([
      expect.stringMatching(/^an image of the history could not be restored .* is missing;/),
    ]);
    expect((await second.submit('and now?')).cause).toEqual({ kind: 'completed' });
    const note = `\n[image: image/png not found: images/${sha256(b64(png))}.b64 is missing]`;
    expect(second.stream.requests[0]!.messages[2]!.content).toEqual([result([], note)]);
  });
});
