/**
 * Ink's `wrap-text.js` as the bundle gives it to Ink (scripts/build.mjs): the same wrapping and
 * truncation, its memo bounded (bounded-cache.ts) where Ink's keeps every text it was ever given.
 */
import cliTruncate from 'cli-truncate';
import wrapAnsi from 'wrap-ansi';
import { BoundedCache } from './bounded-cache.js';

/** Texts remembered: a few frames of a full screen of rows. */
export const WRAP_CACHE_SIZE = 4096;

type WrapType = 'wrap' | 'end' | 'middle' | 'truncate-end' | 'truncate' | 'truncate-middle' | 'truncate-start';

// One memo for the process, as Ink's module has: Ink calls this as a plain function.
const cache = new BoundedCache<string>(WRAP_CACHE_SIZE);

export default function wrapText(text: string, maxWidth: number, wrapType: WrapType): string {
  // Ink's key, separators added: "ab" at width 12 and "ab1" at width 2 are not one text.
  const key = `${maxWidth}\u0000${wrapType}\u0000${text}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  let wrapped = text;
  if (wrapType === 'wrap') wrapped = wrapAnsi(text, maxWidth, { trim: false, hard: true });
  if (wrapType.startsWith('truncate')) {
    const position = wrapType === 'truncate-middle' ? 'middle' : wrapType === 'truncate-start' ? 'start' : 'end';
    wrapped = cliTruncate(text, maxWidth, { position });
  }
  cache.set(key, wrapped);
  return wrapped;
}

/** How many texts the memo holds (tests). */
export function wrappedTexts(): number {
  return cache.entries;
}
