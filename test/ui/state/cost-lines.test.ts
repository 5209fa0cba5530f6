import { describe, expect, it } from 'vitest';
import { costLines } from '../../../src/ui/state/cost-lines.js';

describe('costLines', () => {
  it('aligns the parent, each job and the total, with unknown cost said so', () => {
    const lines = costLines(
      [
        { name: 'parent', usage: { input: 12_000, output: 800, cacheRead: 40_000, cacheWrite: 2_000 }, cost: 0.0612 },
        { name: 'sub-1', usage: { input: 3_000, output: 200, cacheRead: 0, cacheWrite: 0 }, cost: 0.012 },
      ],
      { name: 'total', usage: { input: 15_000, output: 1_000, cacheRead: 40_000, cacheWrite: 2_000 }, cost: undefined },
    );
    expect(lines).toEqual([
      '        input  output  cache read  cache write  total     cost',
      'parent    12k     800         40k         2.0k    55k  $0.0612',
      'sub-1    3.0k     200           0            0   3.2k  $0.0120',
      'total     15k    1.0k         40k         2.0k    58k  unknown',
    ]);
  });
});
