import { describe, expect, it } from 'vitest';
import { type DiffOp, diffLines, splitLines, unifiedDiff } from '../../../src/core/tools/diff.js';

const numbered = (n: number): string[] => Array.from({ length: n }, (_, i) => `line ${i + 1}`);
const text = (lines: string[]): string => `${lines.join('\n')}\n`;

/** The two sides an edit script describes. */
function sides(ops: DiffOp[]): { a: string[]; b: string[] } {
  return {
    a: ops.filter((op) => op.kind !== '+').map((op) => op.line),
    b: ops.filter((op) => op.kind !== '-').map((op) => op.line),
  };
}

/** Length of the longest common subsequence, by the textbook table, to check Myers is minimal. */
function lcsLength(a: string[], b: string[]): number {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      table[i][j] = a[i - 1] === b[j - 1] ? table[i - 1][j - 1] + 1 : Math.max(table[i - 1][j], table[i][j - 1]);
    }
  }
  return table[a.length][b.length];
}

/** A small deterministic generator, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('splitLines', () => {
  it('treats a final newline as the end of the last line', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\nb')).toEqual(['a', 'b']);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
  });
});

describe('diffLines', () => {
  it('finds a minimal edit script that rebuilds both sides', () => {
    const random = seeded(42);
    for (let round = 0; round < 200; round++) {
      const pick = (): string[] => Array.from({ length: Math.floor(random() * 12) }, () => 'abcd'[Math.floor(random() * 4)]);
      const a = pick();
      const b = pick();
      const ops = diffLines(a, b);
      expect(sides(ops)).toEqual({ a, b });
      expect(ops.filter((op) => op.kind === ' ').length).toBe(lcsLength(a, b));
    }
  });

  it('keeps a deleted line between its neighbours', () => {
    expect(diffLines(['a', 'b', 'c'], ['a', 'c'])).toEqual([
      { kind: ' ', line: 'a' },
      { kind: '-', line: 'b' },
      { kind: ' ', line: 'c' },
    ]);
  });

  it('still rebuilds both sides when the texts share nothing and the edit distance is huge', () => {
    const a = Array.from({ length: 1500 }, (_, i) => `old ${i}`);
    const b = Array.from({ length: 1500 }, (_, i) => `new ${i}`);
    const ops = diffLines(a, b);
    expect(sides(ops)).toEqual({ a, b });
  });
});

describe('unifiedDiff', () => {
  it('is empty when nothing changed', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n')).toEqual({ text: '', added: 0, removed: 0 });
  });

  it('shows one changed line with three lines of context on each side', () => {
    const before = numbered(20);
    const after = [...before];
    after[9] = 'line ten';
    const diff = unifiedDiff(text(before), text(after));
    expect(diff).toEqual({
      added: 1,
      removed: 1,
      text: [
        '@@ -7,7 +7,7 @@',
        ' line 7',
        ' line 8',
        ' line 9',
        '-line 10',
        '+line ten',
        ' line 11',
        ' line 12',
        ' line 13',
      ].join('\n'),
    });
  });

  it('puts a header first when given a label', () => {
    expect(unifiedDiff('a\n', 'b\n', { label: 'x.txt' }).text).toBe('--- x.txt\n+++ x.txt\n@@ -1,1 +1,1 @@\n-a\n+b');
  });

  it('splits changes far apart into separate hunks and joins close ones', () => {
    const before = numbered(40);
    const far = [...before];
    far[2] = 'changed 3';
    far[30] = 'changed 31';
    expect(unifiedDiff(text(before), text(far)).text.match(/^@@/gm)).toHaveLength(2);

    const near = [...before];
    near[10] = 'changed 11';
    near[16] = 'changed 17'; // 6 lines apart: the two contexts touch
    const joined = unifiedDiff(text(before), text(near)).text;
    expect(joined.match(/^@@/gm)).toHaveLength(1);
    expect(joined.split('\n')[0]).toBe('@@ -8,13 +8,13 @@');
  });

  it('numbers an empty side by the line before it', () => {
    expect(unifiedDiff('', 'a\nb\n').text).toBe('@@ -0,0 +1,2 @@\n+a\n+b');
    expect(unifiedDiff('a\nb\n', '').text).toBe('@@ -1,2 +0,0 @@\n-a\n-b');
    expect(unifiedDiff('a\nb\nc\n', 'a\nb\nc\nd\n').text).toBe('@@ -1,3 +1,4 @@\n a\n b\n c\n+d');
  });

  it('cuts a long diff and says how many lines were left out', () => {
    const diff = unifiedDiff('', text(numbered(100)), { maxLines: 10 });
    const lines = diff.text.split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[10]).toBe('… 91 more diff lines not shown');
    expect(diff.added).toBe(100);
  });
});
