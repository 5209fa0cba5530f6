import { describe, expect, it } from 'vitest';
import { HeadTailBuffer } from '../../../src/core/tools/head-tail-buffer.js';

describe('HeadTailBuffer', () => {
  it('returns everything while it fits', () => {
    const buffer = new HeadTailBuffer(10);
    buffer.append('abc');
    buffer.append('defghij');
    expect(buffer.text()).toBe('abcdefghij');
  });

  it('keeps the head and the tail and counts what was cut, across many chunks', () => {
    const buffer = new HeadTailBuffer(10);
    const all = Array.from({ length: 100 }, (_, i) => String(i % 10)).join('');
    for (let i = 0; i < all.length; i += 3) buffer.append(all.slice(i, i + 3));
    expect(buffer.text()).toBe(`01234\n… [90 characters cut from the middle of the output] …\n56789`);
  });
});
