/**
 * Small images for tests, made byte by byte: a PNG any decoder opens (real chunks, CRCs and
 * deflated rows), and JPEG, GIF and WebP files whose headers say what a real file's would.
 */
import { deflateSync } from 'node:zlib';

function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A whole RGB PNG of `width`×`height`, every pixel `rgb`. */
export function pngImage(width = 2, height = 2, rgb: [number, number, number] = [255, 0, 0]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Only a PNG's header chunk, claiming `width`×`height` (for size limits: nothing decodes it). */
export function pngHeader(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header)]);
}

/** A JPEG's markers up to its frame header: SOI, a JFIF APP0, a comment of `padding` bytes, SOF2, EOI. */
export function jpegImage(width = 3, height = 2, padding = 10): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const comment = Buffer.concat([
    Buffer.from([0xff, 0xfe, (padding + 2) >> 8, (padding + 2) & 0xff]),
    Buffer.alloc(padding, 0x41),
  ]);
  const sof = Buffer.from([0xff, 0xc2, 0x00, 0x11, 8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3]);
  const components = Buffer.from([1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, comment, sof, components, Buffer.from([0xff, 0xd9])]);
}

/** A 1×1 transparent GIF. */
export function gifImage(): Buffer {
  return Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
}

/** A lossless WebP (VP8L) header of `width`×`height`. */
export function webpImage(width = 4, height = 3): Buffer {
  const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
  const data = Buffer.alloc(10);
  data[0] = 0x2f;
  data.writeUInt32LE(bits >>> 0, 1);
  const riff = Buffer.alloc(4);
  riff.writeUInt32LE(4 + 8 + data.length);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(data.length);
  return Buffer.concat([Buffer.from('RIFF'), riff, Buffer.from('WEBPVP8L'), size, data]);
}

/** `bytes` as base64. */
export const b64 = (bytes: Buffer): string => bytes.toString('base64');
