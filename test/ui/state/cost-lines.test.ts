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

  it('names the model of each row and, when jobs ran on more than one model, adds a row per model', () => {
    const sonnet = 'claude-sonnet-4-5';
    const haiku = 'claude-haiku-4-5';
    const lines = costLines(
      [
        {
          name: 'parent',
          model: sonnet,
          usage: { input: 12_000, output: 800, cacheRead: 40_000, cacheWrite: 2_000 },
          cost: 0.0612,
        },
        { name: 'sub-1', model: haiku, usage: { input: 3_000, output: 200, cacheRead: 0, cacheWrite: 0 }, cost: 0.004 },
        { name: 'sub-2', model: sonnet, usage: { input: 1_000, output: 100, cacheRead: 0, cacheWrite: 0 }, cost: 0.0045 },
      ],
      { name: 'total', usage: { input: 16_000, output: 1_100, cacheRead: 40_000, cacheWrite: 2_000 }, cost: 0.0697 },
      [
        {
          name: sonnet,
          model: sonnet,
          usage: { input: 13_000, output: 900, cacheRead: 40_000, cacheWrite: 2_000 },
          cost: 0.0657,
        },
        { name: haiku, model: haiku, usage: { input: 3_000, output: 200, cacheRead: 0, cacheWrite: 0 }, cost: 0.004 },
      ],
    );
    expect(lines).toEqual([
      '          model              input  output  cache read  cache write  total     cost',
      'parent    claude-sonnet-4-5    12k     800         40k         2.0k    55k  $0.0612',
      'sub-1     claude-haiku-4-5    3.0k     200           0            0   3.2k  $0.0040',
      'sub-2     claude-sonnet-4-5   1.0k     100           0            0   1.1k  $0.0045',
      'by model  claude-sonnet-4-5    13k     900         40k         2.0k    56k  $0.0657',
      '          claude-haiku-4-5    3.0k     200           0            0   3.2k  $0.0040',
      'total                          16k    1.1k         40k         2.0k    59k  $0.0697',
    ]);
    // One model: its row would say what the total says.
    expect(
      costLines([], { name: 'total', usage: { input: 1, output: 0, cacheRead: 0, cacheWrite: 0 } }, [
        { name: sonnet, model: sonnet, usage: { input: 1, output: 0, cacheRead: 0, cacheWrite: 0 } },
      ]),
    ).toHaveLength(2);
  });
});
