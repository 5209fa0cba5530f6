import { tokenize as tokenizeOf } from '@alcalzone/ansi-tokenize';
import isFullwidthCodePoint from 'is-fullwidth-code-point';
import stringWidthOf from 'string-width';
import { describe, expect, it } from 'vitest';
import { NARROW_RANGES, isNarrow, narrowWidth, sgrEnd } from '../../../src/ui/ink-shims/narrow-text.js';

const graphemes = new Intl.Segmenter();
const count = (text: string) => [...graphemes.segment(text)].length;

function* narrowCharacters(): Generator<string> {
  for (const [start, end] of NARROW_RANGES) {
    for (let code = start; code <= end; code += 1) yield String.fromCharCode(code);
  }
}

describe('narrow text', () => {
  it('lists only characters one cell wide, each a grapheme of its own beside any other, as the libraries see them', () => {
    const wrong: string[] = [];
    for (const char of narrowCharacters()) {
      // A mark, joiner or prepended character would join 'a' on one side; a Hangul jamo or
      // regional indicator would join its twin; a control or wide character is not one cell.
      const alone = count(`a${char}a`) === 3 && count(`${char}${char}`) === 2;
      const oneCell = stringWidthOf(char) === 1 && stringWidthOf(`a${char}${char}`) === 3;
      const tokens = tokenizeOf(`${char}${char}`);
      const oneToken = tokens.length === 2 && tokens.every((t) => t.type === 'char' && t.value === char && !t.fullWidth);
      if (!alone || !oneCell || !oneToken || isFullwidthCodePoint(char.charCodeAt(0))) {
        wrong.push(char.charCodeAt(0).toString(16));
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps its ranges sorted and apart (they are searched by halves)', () => {
    for (let i = 1; i < NARROW_RANGES.length; i += 1) {
      expect(NARROW_RANGES[i]![0]).toBeGreaterThan(NARROW_RANGES[i - 1]![1]);
    }
  });

  it('knows a character from its code unit', () => {
    for (const char of [' ', 'a', '~', '·', '…', '›', '●', '⎿', '─', '╭', '☐', '✗', '⠙', 'ж']) {
      expect(isNarrow(char.charCodeAt(0))).toBe(true);
    }
    for (const char of [
      '\t',
      '\u001B',
      '\u007F',
      '\u009B',
      '\u00AD',
      '\u0301',
      '\u200B',
      '\u200D',
      '日',
      '⌚',
      '✅',
      '\uFE0F',
      '\uD83D',
    ]) {
      expect(isNarrow(char.charCodeAt(0))).toBe(false);
    }
  });

  it('measures narrow text, its colour codes set aside, and nothing else', () => {
    expect(narrowWidth('sub-12  writing: …the tail · 1m20s · 12 tools')).toBe(45);
    expect(narrowWidth('')).toBe(0);
    expect(narrowWidth('\u001B[33m· yellow\u001B[39m')).toBe(8);
    expect(narrowWidth('\u001B[1;38;5;196mred\u001B[m')).toBe(3);
    expect(narrowWidth('emoji 😀')).toBeUndefined();
    expect(narrowWidth('e\u0301')).toBeUndefined();
    expect(narrowWidth('\u001B]8;;x\u0007')).toBeUndefined();
    expect(narrowWidth('\u001B[2Jclear')).toBeUndefined();
    expect(narrowWidth('\u001B[31')).toBeUndefined();
  });

  it('finds where a colour code ends', () => {
    expect(sgrEnd('\u001B[33mx', 0)).toBe(5);
    expect(sgrEnd('ab\u001B[mx', 2)).toBe(5);
    expect(sgrEnd('\u001B[33mx', 1)).toBe(-1);
    expect(sgrEnd('\u001B[3Ax', 0)).toBe(-1);
    expect(sgrEnd('\u001B]33m', 0)).toBe(-1);
    expect(sgrEnd('\u001B[33', 0)).toBe(-1);
  });
});
