/**
 * Ink's `measure-text.js` as the bundle gives it to Ink (scripts/build.mjs): the same answer
 * (the widest line and the number of lines), its memo bounded (bounded-cache.ts) where Ink's
 * keeps every text it was ever given.
 */
import widestLine from 'widest-line';
import { BoundedCache } from './bounded-cache.js';

/** Texts remembered: a few frames of a full screen of rows. */
export const MEASURE_CACHE_SIZE = 4096;

// One memo for the process, as Ink's module has: Ink calls this as a plain function.
const cache = new BoundedCache<{ width: number; height: number }>(MEASURE_CACHE_SIZE);

export default function measureText(text: string): { width: number; height: number } {
  if (text.length === 0) return { width: 0, height: 0 };
  const known = cache.get(text);
  if (known) return known;
  const dimensions = { width: widestLine(text), height: text.split('\n').length };
  cache.set(text, dimensions);
  return dimensions;
}

/** How many texts the memo holds (tests). */
export function measuredTexts(): number {
  return cache.entries;
}
