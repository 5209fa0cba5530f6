import { safeText } from './safe-text.js';

/**
 * `word` as a POSIX shell reads it back: as it is when plain, else in single quotes (a quote
 * inside written `'\''`). Invisible and control characters are escaped first: a command shown
 * to be copied must show what it holds.
 */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${safeText(word).replace(/'/g, `'\\''`)}'`;
}
