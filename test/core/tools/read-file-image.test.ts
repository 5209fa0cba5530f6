/**
 * read_file of an image: the bytes decide (never the name), what image-block.ts would send comes
 * back as an image beside a line of text, and anything it would refuse as a text result.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { createReadFileTool, readFileTool } from '../../../src/core/tools/read-file.js';
import { b64, gifImage, jpegImage, pngHeader, pngImage, webpImage } from '../../support/images.js';
import { type TempDir, run, tempDir } from './harness.js';

let dir: TempDir;
let workspace: Workspace;
beforeEach(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
});
afterEach(() => dir.cleanup());

const read = (path: string, extra: object = {}) => run(readFileTool, { path, ...extra }, { workspace });

describe('read_file of an image', () => {
  it.each([
    ['shot.png', pngImage(3, 2), 'image/png', 'PNG image, 3×2'],
    ['photo.jpg', jpegImage(640, 480), 'image/jpeg', 'JPEG image, 640×480'],
    ['dot.gif', gifImage(), 'image/gif', 'GIF image, 1×1'],
    ['pic.webp', webpImage(4, 3), 'image/webp', 'WebP image, 4×3'],
  ])('returns %s as the image, with a line of text saying what it is', async (name, bytes, mediaType, what) => {
    dir.write(name, bytes);
    // Offset and limit are for text: an image comes back whole whatever they say.
    expect(await read(name, { offset: 5, limit: 1 })).toEqual({
      content: `${name}: ${what}, ${bytes.length} B`,
      images: [{ type: 'image', mediaType, data: b64(bytes) }],
    });
  });

  it('goes by the bytes, not the name: a PNG named .txt is an image, a .png holding text is text', async () => {
    dir.write('notes.txt', pngImage(2, 2));
    dir.write('fake.png', 'not really\na picture\n');
    expect((await read('notes.txt')).images?.[0]?.mediaType).toBe('image/png');
    expect(await read('fake.png')).toEqual({ content: '     1\tnot really\n     2\ta picture' });
  });

  it('reads as text a text file that happens to start like a GIF or WebP (their magic is ASCII)', async () => {
    dir.write('gif.md', 'GIF89a is the format of this file\n');
    dir.write('riff.txt', 'RIFF1234WEBP and more\n');
    expect(await read('gif.md')).toEqual({ content: '     1\tGIF89a is the format of this file' });
    expect(await read('riff.txt')).toEqual({ content: '     1\tRIFF1234WEBP and more' });
  });

  it.each([
    ['the signature alone', pngImage().subarray(0, 8)],
    ['a header cut short', pngImage().subarray(0, 20)],
    ['garbage after the signature', Buffer.concat([pngImage().subarray(0, 8), Buffer.from('\u0000garbage, no IHDR')])],
    ['a 0×0 header', pngHeader(0, 0)],
  ])('PNG magic with %s: an error saying so, no image', async (_, bytes) => {
    dir.write('broken.png', bytes);
    expect(await read('broken.png')).toEqual({
      content: 'broken.png starts like a PNG image, but its header is cut short or damaged; read_file cannot show it.',
      isError: true,
    });
  });

  it('refuses an image wider than 8000 px in text, saying what to do', async () => {
    dir.write('wide.png', pngHeader(9000, 10));
    const out = await read('wide.png');
    expect(out.images).toBeUndefined();
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(
      /^wide\.png \(PNG image, 9000×10, \d+ B\) is too large to send to the model: images go at most 8000 px a side\. Make a smaller copy/,
    );
  });

  it('refuses an image over 5 MB as base64, and one too large to read whole, by its size', async () => {
    const big = Buffer.concat([pngHeader(100, 100), Buffer.alloc(4 * 1024 * 1024)]);
    dir.write('big.png', big);
    const out = await read('big.png');
    expect(out).toMatchObject({ isError: true });
    expect(out.images).toBeUndefined();
    expect(out.content).toBe(
      'big.png (PNG image, 100×100, 4.0 MB) is too large to send to the model: images go at most 3.8 MB (5.0 MB as base64). ' +
        'Make a smaller copy (for example `convert <file> -resize 50% small.jpg` with ImageMagick) and read that.',
    );
    // Past 16 MB a file is streamed, never read whole: its head alone says it is an image.
    dir.write('huge.png', Buffer.concat([pngHeader(9000, 9000), Buffer.alloc(17 * 1024 * 1024)]));
    const huge = await read('huge.png');
    expect(huge).toMatchObject({ isError: true });
    expect(huge.content).toMatch(/^huge\.png \(PNG image, 9000×9000, 17\.0 MB\) is too large to send to the model/);
  });

  it('still calls other binary files binary, naming what it does show', async () => {
    dir.write('data.bin', Buffer.concat([Buffer.from('PK'), Buffer.alloc(100)]));
    expect(await read('data.bin')).toEqual({
      content: 'data.bin is a binary file (102 B); read_file shows text and PNG, JPEG, GIF or WebP images only.',
      isError: true,
    });
  });

  it("takes the image from the disk when an editor's text of the file (over ACP) is no text", async () => {
    const bytes = pngImage(2, 2);
    dir.write('shot.png', bytes);
    // What an editor makes of a PNG's bytes decoded as UTF-8: a replacement character first, NULs after.
    for (const text of [bytes.toString('utf8'), `\ufffdPNG\r\n`]) {
      const tool = createReadFileTool({ source: async () => text });
      expect(await run(tool, { path: 'shot.png' }, { workspace })).toMatchObject({
        content: `shot.png: PNG image, 2×2, ${bytes.length} B`,
        images: [{ type: 'image', mediaType: 'image/png', data: b64(bytes) }],
      });
    }
  });
});
