import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sniffImage } from '../../../src/core/platform/image-bytes.js';
import {
  ImageError,
  MAX_IMAGE_BASE64,
  imageBlock,
  imageBlocks,
  imageByteLength,
  imageFromBytes,
  imageLabel,
  imageSummary,
  isSendableImage,
} from '../../../src/core/providers/image-block.js';
import { b64, gifImage, jpegImage, pngHeader, pngImage, webpImage } from '../../support/images.js';

describe('sniffImage', () => {
  it.each([
    ['PNG', pngImage(5, 7), 'image/png', { width: 5, height: 7 }],
    ['JPEG (progressive, after a comment)', jpegImage(640, 480, 3000), 'image/jpeg', { width: 640, height: 480 }],
    ['GIF', gifImage(), 'image/gif', { width: 1, height: 1 }],
    ['WebP (lossless)', webpImage(300, 200), 'image/webp', { width: 300, height: 200 }],
  ])('reads a %s: its type from the magic number, its size from the header', (_name, bytes, mediaType, size) => {
    expect(sniffImage(bytes)).toEqual({ mediaType, size });
  });

  it('knows no other bytes, and reads no size from a header cut short', () => {
    expect(sniffImage(Buffer.from('BM6\0\0\0'))).toBeUndefined();
    expect(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(sniffImage(Buffer.alloc(0))).toBeUndefined();
    expect(sniffImage(pngImage().subarray(0, 8))).toEqual({ mediaType: 'image/png' });
    expect(sniffImage(jpegImage().subarray(0, 30))).toEqual({ mediaType: 'image/jpeg' });
  });

  it('never throws or loops on hostile bytes behind a real magic number', () => {
    const magics = [
      pngImage().subarray(0, 16),
      Buffer.from([0xff, 0xd8, 0xff]),
      Buffer.from('GIF89a'),
      Buffer.from('RIFF\0\0\0\0WEBP'),
    ];
    for (let i = 0; i < 2000; i++) {
      const bytes = Buffer.concat([magics[i % magics.length]!, randomBytes(i % 97)]);
      expect(() => sniffImage(bytes)).not.toThrow();
    }
    // Segments of length 0 and 1, and a wall of fill bytes, end the JPEG walk.
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x00, 0xff, 0xc0]))?.size).toBeUndefined();
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01]))?.size).toBeUndefined();
    expect(sniffImage(Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(100_000, 0xff)]))?.size).toBeUndefined();
  });
});

describe('imageBlock', () => {
  it('takes an image whose declared type its bytes bear out, or none declared', () => {
    const data = b64(pngImage());
    expect(imageBlock({ data, mediaType: 'image/png' })).toEqual({ type: 'image', mediaType: 'image/png', data });
    expect(imageBlock({ data: b64(jpegImage()) }).mediaType).toBe('image/jpeg');
    // What many senders write for JPEG.
    expect(imageBlock({ data: b64(jpegImage()), mediaType: 'image/jpg' }).mediaType).toBe('image/jpeg');
    expect(imageBlock({ data: b64(webpImage()), mediaType: ' IMAGE/WEBP ' }).mediaType).toBe('image/webp');
  });

  it('refuses a declared type the bytes do not bear out, saying which type to send', () => {
    expect(() => imageBlock({ data: b64(jpegImage()), mediaType: 'image/png' }, 'image 2')).toThrow(
      'image 2 is declared image/png but its bytes are JPEG: send it as image/jpeg',
    );
  });

  it('refuses a type no model takes, and bytes that are no image of the four', () => {
    expect(() => imageBlock({ data: b64(pngImage()), mediaType: 'image/bmp' })).toThrow(
      'the image is declared "image/bmp", a type no model takes: send PNG, JPEG, GIF or WebP',
    );
    expect(() => imageBlock({ data: b64(Buffer.from('BM6 a bitmap')) })).toThrow(
      'its bytes are not a PNG, JPEG, GIF or WebP image',
    );
    expect(() => imageBlock({ data: b64(Buffer.from('<svg/>')), mediaType: 'image/svg+xml' })).toThrow(ImageError);
  });

  it.each([
    ['a character outside the alphabet', '!!!!'],
    ['base64url', b64(pngImage()).replace(/\+/g, '-').replace(/\//g, '_') + '-_'],
    ['a length that is not a multiple of four', 'iVBORw0KGgo'],
    ['padding in the middle', 'QQ==QQ=='],
    ['three padding characters', 'Q==='],
    ['nothing', ''],
    ['a quote that would end a JSON string', 'iVBO"w0KGgo='],
  ])('refuses data that is not base64: %s', (_name, data) => {
    expect(() => imageBlock({ data })).toThrow(
      "its data is not base64 (A–Z, a–z, 0–9, + and /, = padding): send the file's bytes",
    );
  });

  it('refuses data that is not a string (hostile JSON)', () => {
    expect(() => imageBlock({ data: 42 as unknown as string })).toThrow('the image has no data: send its bytes base64-encoded');
  });

  it('takes base64 wrapped in lines and a data: URL, and sends them canonical', () => {
    const data = b64(pngImage(40, 40));
    const wrapped = data.replace(/.{1,76}/g, '$&\r\n');
    expect(imageBlock({ data: wrapped }).data).toBe(data);
    expect(imageBlock({ data: `data:image/png;base64,${data}` })).toEqual({ type: 'image', mediaType: 'image/png', data });
    expect(() => imageBlock({ data: `data:image/gif;base64,${data}` })).toThrow('is declared image/gif but its bytes are PNG');
  });

  it('refuses a header cut short, which no API could decode', () => {
    expect(() => imageBlock({ data: b64(pngImage().subarray(0, 12)) })).toThrow(
      'the image: its PNG header is cut short or damaged: send the whole file',
    );
  });

  it("refuses an image over Anthropic's 5 MB of base64, without decoding an enormous one", () => {
    const big = Buffer.concat([pngImage(), Buffer.alloc(MAX_IMAGE_BASE64)]);
    expect(() => imageBlock({ data: b64(big) })).toThrow(
      /the image is 6\.7 MB as base64 \(5\.0 MB of image\); the limit is 5\.0 MB as base64/,
    );
    expect(() => imageFromBytes(big, '@big.png')).toThrow(/^@big\.png is 6\.7 MB as base64/);
    // Past twice the limit the text is not even scanned: any character goes.
    expect(() => imageBlock({ data: '!'.repeat(2 * MAX_IMAGE_BASE64 + 4) })).toThrow('as base64');
    const justUnder = Buffer.concat([pngImage(), Buffer.alloc(Math.floor((MAX_IMAGE_BASE64 * 3) / 4) - pngImage().length)]);
    expect(imageFromBytes(justUnder, 'x').data.length).toBeLessThanOrEqual(MAX_IMAGE_BASE64);
  });

  it('refuses a side over 8000 px', () => {
    expect(() => imageBlock({ data: b64(pngHeader(8001, 10)) })).toThrow(
      'the image is 8001×10 px; a side may be at most 8000 px: scale it down',
    );
    expect(imageBlock({ data: b64(pngHeader(8000, 8000)) }).mediaType).toBe('image/png');
  });
});

describe('imageBlocks', () => {
  it('numbers the images of a prompt in its messages, and takes at most 20', () => {
    const good = { data: b64(pngImage()) };
    expect(imageBlocks(Array.from({ length: 20 }, () => good))).toHaveLength(20);
    expect(() => imageBlocks(Array.from({ length: 21 }, () => good))).toThrow(
      '21 images in one prompt; the limit is 20: send the rest in another prompt',
    );
    expect(() => imageBlocks([good, { data: 'no!e' }], 'stdin line 3')).toThrow('stdin line 3: image 2: its data is not base64');
  });
});

describe('image labels and stored images', () => {
  it('labels an image by its decoded size and type, nothing decoded', () => {
    const bytes = Buffer.concat([pngImage(), Buffer.alloc(34 * 1024 - pngImage().length)]);
    const block = imageFromBytes(bytes, 'x');
    expect(imageByteLength(block)).toBe(bytes.length);
    expect(imageLabel(imageSummary(block))).toBe('[image: 34.0 KB png]');
    expect(imageByteLength({ data: b64(Buffer.from('ab')) })).toBe(2);
  });

  it('keeps a stored image only as it was sent: valid, canonical, of the type its bytes are', () => {
    const data = b64(pngImage());
    expect(isSendableImage({ mediaType: 'image/png', data })).toBe(true);
    expect(isSendableImage({ mediaType: 'image/jpeg', data })).toBe(false);
    expect(isSendableImage({ mediaType: 'image/png', data: `${data.slice(0, 8)}\n${data.slice(8)}` })).toBe(false);
    expect(isSendableImage({ mediaType: 'image/png', data: data.replace(/A/, '[redacted]') })).toBe(false);
    expect(isSendableImage({ mediaType: 'image/png' })).toBe(false);
  });
});
