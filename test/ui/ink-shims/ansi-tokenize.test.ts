import * as library from '@alcalzone/ansi-tokenize';
import type { StyledChar } from '@alcalzone/ansi-tokenize';
import { describe, expect, it } from 'vitest';
import * as shim from '../../../src/ui/ink-shims/ansi-tokenize.js';
import { SAMPLES } from './samples.js';

/** A blank cell as Ink's output starts every cell of its grid. */
const blank = (): StyledChar => ({ type: 'char', value: ' ', fullWidth: false, styles: [] });

/**
 * A screen row as Ink's output builds one: the styled characters of a few lines written side by
 * side over blank cells (each cell keeping its own styles array, equal or not to its neighbour's).
 */
function row(lines: string[], tokens: typeof library): StyledChar[] {
  const cells: StyledChar[] = [];
  for (const line of lines) cells.push(blank(), blank(), ...tokens.styledCharsFromTokens(tokens.tokenize(line)));
  return [...cells, blank()];
}

describe("@alcalzone/ansi-tokenize as Ink's output gets it", () => {
  it('tokenizes and styles every line as the library does', () => {
    for (const text of SAMPLES) {
      expect(shim.tokenize(text), JSON.stringify(text)).toEqual(library.tokenize(text));
      expect(shim.tokenize(text, 5)).toEqual(library.tokenize(text, 5));
      expect(shim.styledCharsFromTokens(library.tokenize(text))).toEqual(library.styledCharsFromTokens(library.tokenize(text)));
    }
  });

  it('joins rows of styled and blank cells into the string the library makes', () => {
    const rows = [
      [],
      [''],
      ...SAMPLES.map((text) => [text]),
      // Neighbours with equal styles in different arrays, styles on at the row's end, resets.
      [SAMPLES[6]!, SAMPLES[7]!, SAMPLES[2]!],
      ['\u001B[33mon', '\u001B[33mstill on'],
      ['\u001B[1mbold', '\u001B[2mdim', '\u001B[1m\u001B[2mboth'],
      ['\u001B[36m\u001B[2mdim cyan\u001B[22m\u001B[39m', '\u001B[2m\u001B[36mthe same, the other way\u001B[39m\u001B[22m'],
      SAMPLES,
    ];
    for (const lines of rows) {
      const cells = row(lines, library);
      expect(shim.styledCharsToString(cells), JSON.stringify(lines)).toBe(library.styledCharsToString(cells));
      expect(shim.styledCharsToString(row(lines, shim as typeof library))).toBe(library.styledCharsToString(cells));
    }
  });

  it('splits narrow text by its characters and keeps the rest of the library', () => {
    expect(shim.tokenize('a·b')).toEqual([
      { type: 'char', value: 'a', fullWidth: false },
      { type: 'char', value: '·', fullWidth: false },
      { type: 'char', value: 'b', fullWidth: false },
    ]);
    expect(shim.reduceAnsiCodes).toBe(library.reduceAnsiCodes);
    expect(shim.undoAnsiCodes).toBe(library.undoAnsiCodes);
  });
});
