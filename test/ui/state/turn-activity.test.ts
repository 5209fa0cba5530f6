import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import { type TurnActivity, applyTurnActivity, spinnerFrame, workingLine } from '../../../src/ui/state/turn-activity.js';

const usage = { input: 3000, output: 400, cacheRead: 0, cacheWrite: 0 };

/** Applies events at the given times. */
function at(...steps: [number, SessionEvent][]): TurnActivity | undefined {
  return steps.reduce<TurnActivity | undefined>((turn, [now, event]) => applyTurnActivity(turn, event, now), undefined);
}

describe('the working line', () => {
  it('says what the turn does and for how long: the model, thinking, writing, a tool', () => {
    let turn = at([1000, { type: 'submit', prompt: 'go' }], [1000, { type: 'turn_start', turn: 1 }]);
    expect(workingLine(turn, 13_000)).toMatch(/^. waiting for the model · turn 12s · Esc to interrupt$/);
    turn = applyTurnActivity(turn, { type: 'thinking_delta', text: 'hm' }, 14_000);
    expect(workingLine(turn, 16_000)).toContain('thinking · turn 15s · ↓ 1 tokens');
    turn = applyTurnActivity(turn, { type: 'usage', usage, total: usage }, 17_000);
    turn = applyTurnActivity(turn, { type: 'tool_start', id: 'a', name: 'bash', label: 'npm test', args: {} }, 17_000);
    turn = applyTurnActivity(turn, { type: 'tool_start', id: 'b', name: 'grep', label: 'x', args: {} }, 18_000);
    expect(workingLine(turn, 20_000)).toMatch(
      /running grep 2s · Ctrl\+B to run in background · turn 19s · ↓ 400 tokens · Esc to interrupt$/,
    );
    turn = applyTurnActivity(turn, { type: 'tool_end', id: 'b', name: 'grep', content: '', isError: false }, 21_000);
    expect(workingLine(turn, 21_000)).toContain('running bash 0s');
    turn = applyTurnActivity(turn, { type: 'tool_end', id: 'a', name: 'bash', content: '', isError: false }, 22_000);
    expect(workingLine(turn, 22_000)).not.toContain('Ctrl+B');
    // At 60 columns the line is cut: the key still shows, right after the command it moves.
    expect(
      workingLine(
        applyTurnActivity(turn, { type: 'tool_start', id: 'c', name: 'bash', label: 'x', args: {} }, 22_000),
        22_000,
      ).slice(0, 60),
    ).toContain('Ctrl+B to run in background');
    turn = applyTurnActivity(turn, { type: 'text_delta', text: 'Done'.repeat(100) }, 23_000);
    // No two unlabelled timers; what streams is counted before the model reports it (400 + 400/4).
    expect(workingLine(turn, 24_000)).toMatch(/^. writing · turn 23s · ↓ 500 tokens · Esc to interrupt$/);
    expect(applyTurnActivity(turn, { type: 'run_end', cause: { kind: 'completed' } }, 25_000)).toBeUndefined();
  });

  it('keeps the phase start while the same phase goes on, and ignores events outside a turn', () => {
    const turn = at(
      [0, { type: 'submit' }],
      [1000, { type: 'text_delta', text: 'a' }],
      [5000, { type: 'text_delta', text: 'b' }],
    );
    expect(turn?.since).toBe(1000);
    expect(applyTurnActivity(undefined, { type: 'text_delta', text: 'x' }, 0)).toBeUndefined();
  });

  it('moves its spinner with the clock', () => {
    expect(spinnerFrame(0)).not.toBe(spinnerFrame(200));
    expect(workingLine(undefined, 0, 'compacting the conversation')).toMatch(/compacting the conversation · Esc to interrupt$/);
  });
});
