/**
 * `string-width` as the bundle gives it to Ink (scripts/build.mjs). Ink measures every line of
 * the live area on every frame, and `string-width` segments any line that is not plain ASCII
 * into graphemes, which most rows are not (`·`, `…`, `●`, box drawing): with 50 sub-agents
 * streaming that was a fifth of the TUI's CPU. Narrow text, once its colour codes are set
 * aside, is as wide as it is long; any other text (and any call with options) goes to
 * `string-width` itself, so the answer is always the one it gives.
 */
import stringWidthOf from 'string-width';
import { narrowWidth } from './narrow-text.js';

/** `string-width`'s answer, found without it for narrow text. */
export default function stringWidth(text: string, options?: Parameters<typeof stringWidthOf>[1]): number {
  const width = options === undefined && typeof text === 'string' ? narrowWidth(text) : undefined;
  return width ?? stringWidthOf(text, options);
}
