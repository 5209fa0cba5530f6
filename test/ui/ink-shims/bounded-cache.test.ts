import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../../src/ui/ink-shims/bounded-cache.js';

describe('BoundedCache', () => {
  it('never holds more than twice its size, however many keys pass through', () => {
    const cache = new BoundedCache<number>(100);
    for (let i = 0; i < 100_000; i++) cache.set(`row ${i}`, i);
    expect(cache.entries).toBeLessThanOrEqual(200);
    expect(cache.get('row 99999')).toBe(99_999);
    expect(cache.get('row 0')).toBeUndefined();
  });

  it('keeps what is asked for every frame while new keys stream by', () => {
    const cache = new BoundedCache<string>(10);
    cache.set('footer', 'F');
    for (let frame = 0; frame < 1_000; frame++) {
      expect(cache.get('footer')).toBe('F');
      cache.set(`elapsed ${frame}s`, 'x');
      cache.set(`tokens ${frame}`, 'y');
    }
  });

  it('answers a falsy value it holds', () => {
    const cache = new BoundedCache<string | number>(2);
    cache.set('empty', '');
    cache.set('zero', 0);
    expect(cache.get('empty')).toBe('');
    expect(cache.get('zero')).toBe(0);
  });
});
