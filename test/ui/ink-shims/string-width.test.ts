import stringWidthOf from 'string-width';
import { describe, expect, it } from 'vitest';
import stringWidth from '../../../src/ui/ink-shims/string-width.js';
import { SAMPLES } from './samples.js';

describe("string-width as Ink's bundle gets it", () => {
  it('answers as string-width does', () => {
    for (const text of SAMPLES) expect(stringWidth(text), JSON.stringify(text)).toBe(stringWidthOf(text));
  });

  it('leaves any call with options to string-width', () => {
    const red = '\u001B[31mred\u001B[39m';
    expect(stringWidth(red, { countAnsiEscapeCodes: true })).toBe(stringWidthOf(red, { countAnsiEscapeCodes: true }));
    expect(stringWidth('±', { ambiguousIsNarrow: false })).toBe(stringWidthOf('±', { ambiguousIsNarrow: false }));
  });
});
