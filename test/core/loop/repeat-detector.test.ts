import { describe, expect, it } from 'vitest';
import type { ToolResultBlock, ToolUseBlock } from '../../../src/core/providers/types.js';
import { type RepeatState, afterBatch, noRepeats } from '../../../src/core/loop/repeat-detector.js';

const call = (name: string, input: unknown, id = 'c'): ToolUseBlock => ({ type: 'tool_use', id, name, input });
const failed = (id = 'c'): ToolResultBlock => ({ type: 'tool_result', toolUseId: id, content: 'no such file', isError: true });
const ok = (id = 'c'): ToolResultBlock => ({ type: 'tool_result', toolUseId: id, content: 'fine' });

/** Feeds batches in order; the index of the batch that stopped the run, or -1. */
function stopsAt(batches: [ToolUseBlock[], ToolResultBlock[]][], max = 3): number {
  let state: RepeatState = noRepeats;
  for (const [index, [calls, results]] of batches.entries()) {
    const next = afterBatch(state, calls, results, max);
    if (next.stop) return index;
    state = next.state;
  }
  return -1;
}

describe('repeated failing calls', () => {
  const same: [ToolUseBlock[], ToolResultBlock[]] = [[call('read_file', { path: 'nope.txt' })], [failed()]];
  it.each([
    ['the same failing call, again and again', [same, same, same, same], 2],
    ['a success in between starts over', [same, same, [[call('read_file', { path: 'nope.txt' })], [ok()]], same, same], -1],
    ['other arguments start over', [same, same, [[call('read_file', { path: 'other.txt' })], [failed()]], same, same], -1],
    ['another tool starts over', [same, same, [[call('grep', { path: 'nope.txt' })], [failed()]], same], -1],
    [
      'a batch where one call succeeds is no loop',
      [1, 2, 3, 4].map((): [ToolUseBlock[], ToolResultBlock[]] => [
        [call('read_file', { path: 'a' }, 'a'), call('read_file', { path: 'b' }, 'b')],
        [failed('a'), ok('b')],
      ]),
      -1,
    ],
  ] as const)('%s', (_name, batches, expected) => {
    expect(stopsAt(batches as unknown as [ToolUseBlock[], ToolResultBlock[]][])).toBe(expected);
  });

  it('names the call and why the run stopped', () => {
    let state: RepeatState = noRepeats;
    let stop;
    for (let i = 0; i < 5 && !stop; i++) ({ state, stop } = afterBatch(state, ...same));
    expect(stop).toEqual({
      kind: 'limit',
      limit: 'repeatedFailure',
      detail: 'the same call failed 5 times in a row (read_file {"path":"nope.txt"}): the model seems stuck, so the run stopped',
    });
  });
});
