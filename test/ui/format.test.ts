import { describe, expect, it } from 'vitest';
import { causeText, cutLine, resultSummary, retryText } from '../../src/ui/format.js';
import { cells, wrapCells } from '../../src/ui/text-cells.js';

describe('cutLine', () => {
  it('leaves short text alone and cuts long text to the width with an ellipsis', () => {
    expect(cutLine('short', 10)).toBe('short');
    expect(cutLine('exactly ten', 11)).toBe('exactly ten');
    expect(cutLine('a much longer line', 8)).toBe('a much …');
    expect(Array.from(cutLine('a much longer line', 8))).toHaveLength(8);
  });

  it('counts terminal cells, never splits an emoji and copes with tiny widths', () => {
    expect(cutLine('😀😀😀😀', 5)).toBe('😀😀…');
    expect(cutLine('日本語のテキスト', 7)).toBe('日本語…');
    expect(cutLine('abc', 1)).toBe('…');
    expect(cutLine('abc', 0)).toBe('');
  });
});

describe('wrapCells', () => {
  it('wraps at spaces, breaks words longer than a line, keeps line breaks, and every line fits', () => {
    expect(wrapCells('the quick brown fox jumps', 10)).toEqual(['the quick', 'brown fox', 'jumps']);
    expect(wrapCells('abcdefghijkl mn', 5)).toEqual(['abcde', 'fghij', 'kl mn']);
    expect(wrapCells('one\n\ntwo', 10)).toEqual(['one', '', 'two']);
    const lines = wrapCells('日本語のテキストを折り返す test of wide text', 9);
    for (const line of lines) expect(cells(line)).toBeLessThanOrEqual(9);
    expect(lines.join('')).toContain('日本語');
  });
});

describe('resultSummary', () => {
  it('shows the first non-empty line and how many follow', () => {
    expect(resultSummary('\nfirst\nsecond\nthird\n', false)).toBe('first (+2 lines)');
    expect(resultSummary('only', false)).toBe('only');
    expect(resultSummary('', false)).toBe('(no output)');
    expect(resultSummary('file not found: x.ts', true)).toBe('error: file not found: x.ts');
  });
});

describe('retryText and causeText', () => {
  it('words a retry with its delay and reason', () => {
    expect(retryText({ attempt: 1, maxRetries: 4, delayMs: 2100, reason: '429 rate limited' })).toBe(
      'retrying in 2.1s (429 rate limited, attempt 1/4)',
    );
  });

  it('says nothing for a completed run and names every other end', () => {
    expect(causeText({ kind: 'completed' })).toBeUndefined();
    expect(causeText({ kind: 'aborted' })).toBe('interrupted');
    expect(causeText({ kind: 'aborted' }, 1)).toBe('interrupted (the sub-agent keeps running)');
    expect(causeText({ kind: 'aborted' }, 3)).toBe('interrupted (3 sub-agents keep running)');
    expect(causeText({ kind: 'limit', limit: 'maxTurns', detail: 'reached 10 turns' })).toContain('reached 10 turns');
    expect(causeText({ kind: 'error', message: 'overloaded' })).toBe('error: overloaded');
  });
});
