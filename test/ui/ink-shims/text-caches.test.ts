/**
 * The bundle's copies of Ink's measure-text and wrap-text (scripts/build.mjs) answer as Ink's
 * own modules do, with a memo that stays bounded.
 */
import { describe, expect, it } from 'vitest';
// Ink's own modules, by path: its package exports do not list them.
import inkMeasureText from '../../../node_modules/ink/build/measure-text.js';
import inkWrapText from '../../../node_modules/ink/build/wrap-text.js';
import measureText, { MEASURE_CACHE_SIZE, measuredTexts } from '../../../src/ui/ink-shims/measure-text.js';
import wrapText, { WRAP_CACHE_SIZE, wrappedTexts } from '../../../src/ui/ink-shims/wrap-text.js';

const TEXTS = [
  '',
  'plain ascii',
  'two\nlines, the second longer',
  '\u001b[31mred\u001b[39m and plain',
  'wide: 漢字かな and emoji 👩‍💻 ok',
  '● job 3 · running · 12s · 1.2k tokens',
  'a very long line that will certainly need wrapping when the width is small enough to matter',
  '\u001b[1mbold\u001b[22m text that wraps \u001b[4munder\u001b[24m lined',
  'tabs\tand   spaces   ',
  '\n\n',
];
const WRAPS = ['wrap', 'truncate', 'truncate-end', 'truncate-middle', 'truncate-start', 'end', 'middle'] as const;

describe("the bundle's Ink text modules", () => {
  it("measure as Ink's measure-text does", () => {
    for (const text of TEXTS) expect(measureText(text)).toEqual(inkMeasureText(text));
  });

  it("wrap and truncate as Ink's wrap-text does", () => {
    for (const text of TEXTS) {
      for (const width of [1, 3, 10, 24, 80]) {
        for (const wrap of WRAPS)
          expect(wrapText(text, width, wrap), `${wrap} ${width} ${text}`).toBe(inkWrapText(text, width, wrap));
      }
    }
  });

  it('do not mistake one text and width for another (Ink joins them without a separator)', () => {
    expect(wrapText('ab', 12, 'truncate')).toBe('ab');
    expect(wrapText('ab1', 2, 'truncate')).toBe(inkWrapText('ab1', 2, 'truncate'));
  });

  it('keep their memos bounded as row texts change every frame', () => {
    for (let second = 0; second < 10_000; second++) {
      const row = `● job 3 · running · ${second}s · ${second * 7} tokens`;
      measureText(row);
      wrapText(row, 40, 'truncate-end');
    }
    expect(measuredTexts()).toBeLessThanOrEqual(2 * MEASURE_CACHE_SIZE);
    expect(wrappedTexts()).toBeLessThanOrEqual(2 * WRAP_CACHE_SIZE);
  });
});
