import { describe, expect, it } from 'vitest';
import type { StatusCommand, StatusOutcome } from '../../../src/core/hooks/status-command.js';
import { StatusLines } from '../../../src/ui/state/status-lines.js';
import { cutStyled, styledCells } from '../../../src/ui/state/styled-line.js';
import { FakeClock, settle } from '../../support/fake-clock.js';

/** A status command whose runs the test answers, one by one. */
function scripted(command = 'statusline.sh') {
  const runs: Array<{ input: unknown; signal: AbortSignal; answer: (outcome: StatusOutcome) => Promise<void> }> = [];
  const status: StatusCommand = {
    command,
    padding: 0,
    run: (input, signal) =>
      new Promise((resolve) => {
        runs.push({
          input,
          signal,
          answer: async (outcome) => {
            resolve(outcome);
            await settle();
          },
        });
      }),
  };
  return { status, runs };
}

function lines(options: { command?: string; maxBatch?: number } = {}) {
  const clock = new FakeClock();
  const { status, runs } = scripted(options.command);
  const told: string[] = [];
  const changes = { count: 0 };
  const statusLines = new StatusLines({
    command: status,
    clock,
    name: 'status line (statusLine)',
    maxBatch: options.maxBatch ?? 1,
    onFailure: (text) => told.push(text),
  });
  statusLines.subscribe(() => (changes.count += 1));
  return { clock, runs, told, changes, statusLines };
}

describe('StatusLines', () => {
  it("keeps each key's latest line, telling its listeners only when a line changes", async () => {
    const s = lines();
    s.statusLines.request([['session', { n: 1 }]]);
    expect(s.runs[0]!.input).toEqual({ n: 1 });
    await s.runs[0]!.answer({ kind: 'line', line: 'one' });
    expect(s.statusLines.snapshot().get('session')).toBe('one');
    s.clock.advance(300);
    s.statusLines.request([['session', { n: 2 }]]);
    await s.runs[1]!.answer({ kind: 'line', line: 'one' });
    expect(s.changes.count).toBe(1);
  });

  it('tells the first failure once, in words naming the command; later failures are not told, and a failure clears the line', async () => {
    const s = lines({ command: 'jq -r .model.display_name\u001b[2J' });
    s.statusLines.request([['session', {}]]);
    await s.runs[0]!.answer({ kind: 'line', line: 'good' });
    for (let i = 1; i <= 3; i += 1) {
      s.clock.advance(300);
      s.statusLines.request([['session', {}]]);
      await s.runs[i]!.answer({ kind: 'failed', reason: 'exited with 1: jq: not found' });
    }
    expect(s.told).toEqual([
      'status line (statusLine): `jq -r .model.display_name\\u{1b}[2J` exited with 1: jq: not found. It runs again as things change; further failures are not shown.',
    ]);
    expect(s.statusLines.snapshot().has('session')).toBe(false);
    // It comes back when the command works again.
    s.clock.advance(300);
    s.statusLines.request([['session', {}]]);
    await s.runs[4]!.answer({ kind: 'line', line: 'back' });
    expect(s.statusLines.snapshot().get('session')).toBe('back');
  });

  it('drops the lines of rows that left the screen, even one whose command was still running', async () => {
    const s = lines({ maxBatch: 4 });
    s.statusLines.request([
      ['sub-1', {}],
      ['sub-2', {}],
    ]);
    await s.runs[0]!.answer({ kind: 'line', line: 'first' });
    s.statusLines.retain(new Set(['sub-2']));
    expect([...s.statusLines.snapshot().keys()]).toEqual([]);
    s.statusLines.retain(new Set());
    await s.runs[1]!.answer({ kind: 'line', line: 'late' });
    expect(s.statusLines.snapshot().size).toBe(0);
  });

  it('closing stops the running command (its signal aborts) and nothing it says afterwards counts', async () => {
    const s = lines();
    s.statusLines.request([['session', {}]]);
    s.statusLines.close();
    expect(s.runs[0]!.signal.aborted).toBe(true);
    await s.runs[0]!.answer({ kind: 'failed', reason: 'killed' });
    expect(s.told).toEqual([]);
    expect(s.statusLines.snapshot().size).toBe(0);
    s.statusLines.request([['session', {}]]);
    s.clock.advance(1000);
    expect(s.runs).toHaveLength(1);
  });
});

describe('cutStyled', () => {
  const ESC = '\u001b';
  it('counts cells without the styles, and cuts to the width with an ellipsis, styles reset at the cut', () => {
    const line = `${ESC}[32mgreen${ESC}[0m text ${ESC}[1m界${ESC}[0m`;
    expect(styledCells(line)).toBe(5 + 6 + 2);
    expect(cutStyled(line, 13)).toBe(line);
    expect(cutStyled(line, 8)).toBe(`${ESC}[32mgreen${ESC}[0m t…${ESC}[0m`);
    // A wide character that does not fit is not split.
    expect(cutStyled(line, 12)).toBe(`${ESC}[32mgreen${ESC}[0m text ${ESC}[1m…${ESC}[0m`);
    expect(cutStyled('plain text', 5)).toBe('plai…');
    expect(cutStyled('anything', 0)).toBe('');
  });
});
