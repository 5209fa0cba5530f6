/**
 * What an image's bytes say it is: its format from the magic number it starts with, and its size
 * in pixels from its header. Only the four formats every provider takes (PNG, JPEG, GIF, WebP).
 * Hostile bytes are expected: every read is bounds-checked and the JPEG walk only moves forward.
 */

/** The image formats every provider takes. */
export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export const IMAGE_MEDIA_TYPES: readonly ImageMediaType[] = Object.freeze([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
] as const);

/** An image as its bytes describe it; no size when its header is cut short or damaged. */
export interface SniffedImage {
  mediaType: ImageMediaType;
  size?: { width: number; height: number };
}

const PNG: readonly number[] = Object.freeze([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The format and pixel size of `bytes`, or undefined when they start as none of the four formats. */
export function sniffImage(bytes: Uint8Array): SniffedImage | undefined {
  const view = new Bytes(bytes);
  if (view.startsWith(PNG, 0)) return { mediaType: 'image/png', ...sized(pngSize(view)) };
  if (view.u8(0) === 0xff && view.u8(1) === 0xd8 && view.u8(2) === 0xff)
    return { mediaType: 'image/jpeg', ...sized(jpegSize(view)) };
  if (view.ascii(0, 6) === 'GIF87a' || view.ascii(0, 6) === 'GIF89a') {
    return { mediaType: 'image/gif', ...sized({ width: view.u16le(6), height: view.u16le(8) }) };
  }
  if (view.ascii(0, 4) === 'RIFF' && view.ascii(8, 4) === 'WEBP') return { mediaType: 'image/webp', ...sized(webpSize(view)) };
  return undefined;
}

/** A size only when both sides were read and are not zero. */
function sized(size: { width?: number; height?: number } | undefined): Pick<SniffedImage, 'size'> {
  const { width, height } = size ?? {};
  return width && height ? { size: { width, height } } : {};
}

function pngSize(view: Bytes) {
  // The first chunk must be IHDR: width and height, big-endian, right after its type.
  return view.ascii(12, 4) === 'IHDR' ? { width: view.u32be(16), height: view.u32be(20) } : undefined;
}

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic): C0–CF but DHT (C4), JPG (C8) and DAC (CC). */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);

function jpegSize(view: Bytes) {
  let at = 2;
  while (at + 4 <= view.length) {
    if (view.u8(at) !== 0xff) return undefined;
    const marker = view.u8(at + 1);
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    // Markers without a length: TEM, RST0–7 (SOI, EOI: nothing to size before them).
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd8 || marker === 0xd9 || marker === 0xda) return undefined;
    const length = view.u16be(at + 2);
    if (length < 2) return undefined;
    if (isStartOfFrame(marker)) return { height: view.u16be(at + 5), width: view.u16be(at + 7) };
    at += 2 + length;
  }
  return undefined;
}

function webpSize(view: Bytes) {
  const chunk = view.ascii(12, 4);
  if (chunk === 'VP8 ') {
    // A key frame's start code, then 14-bit width and height.
    if (view.u8(23) !== 0x9d || view.u8(24) !== 0x01 || view.u8(25) !== 0x2a) return undefined;
    return { width: view.u16le(26) & 0x3fff, height: view.u16le(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (view.u8(20) !== 0x2f || view.length < 25) return undefined;
    const bits = view.u32le(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    if (view.length < 30) return undefined;
    return { width: view.u24le(24) + 1, height: view.u24le(27) + 1 };
  }
  return undefined;
}

/** Reads that give 0 past the end instead of throwing or reading garbage. */
class Bytes {
  constructor(private readonly bytes: Uint8Array) {}

  get length(): number {
    return this.bytes.length;
  }

  u8(at: number): number {
    return this.bytes[at] ?? 0;
  }

  u16le(at: number): number {
    return at + 2 <= this.length ? this.u8(at) | (this.u8(at + 1) << 8) : 0;
  }

  u16be(at: number): number {
    return at + 2 <= this.length ? (this.u8(at) << 8) | this.u8(at + 1) : 0;
  }

  u24le(at: number): number {
    return at + 3 <= this.length ? this.u8(at) | (this.u8(at + 1) << 8) | (this.u8(at + 2) << 16) : 0;
  }

  u32le(at: number): number {
    return at + 4 <= this.length ? (this.u16le(at) | (this.u16le(at + 2) << 16)) >>> 0 : 0;
  }

  u32be(at: number): number {
    return at + 4 <= this.length ? ((this.u16be(at) << 16) | this.u16be(at + 2)) >>> 0 : 0;
  }

  ascii(at: number, length: number): string {
    if (at + length > this.length) return '';
    return String.fromCharCode(...this.bytes.subarray(at, at + length));
  }

  startsWith(prefix: readonly number[], at: number): boolean {
    return prefix.every((byte, i) => this.bytes[at + i] === byte);
  }
}
