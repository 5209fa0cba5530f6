import { afterEach, describe, expect, it } from 'vitest';
import type { StatusCommand } from '../../src/core/hooks/status-command.js';
import type { UiSession } from '../../src/ui/ui-session.js';
import { KEY, type TestSession, frame, keys, mountApp, openTestSession } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

/**
 * The test session's UI face, counting each time the session's whole cost is asked for, with a
 * status line command (answered in-process) that records the cost it is told.
 */
function countingCost(s: TestSession) {
  const calls = { count: 0 };
  const told: number[] = [];
  const main: StatusCommand = {
    command: 'statusline.sh',
    padding: 0,
    run: async (input) => {
      told.push((input as { cost: { total_cost_usd: number } }).cost.total_cost_usd);
      return { kind: 'line', line: 'status' };
    },
  };
  const ui = Object.create(s.ui) as UiSession;
  Object.assign(ui, {
    statusLine: { main },
    cost: () => {
      calls.count += 1;
      return s.ui.cost();
    },
  });
  return { session: { ...s, ui }, calls, told };
}

/** The footer's first line: mode, model, context, cost, sub-agents. */
const footerLine = (text: string) => text.split('\n').at(-2) ?? '';

describe("the session's cost in the footer and the status line", () => {
  it('is priced once when the app starts and once per batch of usage, not at each render, key or status run', async () => {
    // Sonnet 5 ($2 / $10 a million): each answer's 100k input and 10k output cost $0.30.
    session = await openTestSession([
      { text: 'first answer', usage: { input: 100_000, output: 10_000 } },
      { text: 'second answer', usage: { input: 100_000, output: 10_000 } },
    ]);
    const { session: counted, calls, told } = countingCost(session);
    const { rendered, until } = await mountApp(counted);
    await until(() => told.length > 0 || undefined, 'the first status line');
    expect(calls.count).toBe(1);
    expect(footerLine(frame(rendered))).toContain('$0.00');
    expect(told).toEqual([0]);

    // Each key renders the app again; none changes the cost.
    await keys(rendered, ...'say something'.split(''));
    expect(frame(rendered)).toContain('say something');
    expect(calls.count).toBe(1);

    await keys(rendered, KEY.enter);
    // The working line redraws on the clock while the turn runs: those frames do not price either.
    await until(() => footerLine(frame(rendered)).includes('$0.30') || undefined, 'the first answer priced');
    expect(frame(rendered)).toContain('first answer');
    // The turn's one usage event: one batch priced, and the status line told that figure.
    expect(calls.count).toBe(2);
    await until(() => told.at(-1) === session!.ui.cost() || undefined, 'the status line told the first answer');
    await keys(rendered, ...'more'.split(''), KEY.backspace, KEY.backspace);
    expect(calls.count).toBe(2);

    await keys(rendered, KEY.enter);
    await until(() => footerLine(frame(rendered)).includes('$0.60') || undefined, 'the second answer priced');
    expect(calls.count).toBe(3);
    // The figure is the session's own.
    expect(session.ui.cost()).toBeCloseTo(0.6, 10);
  });
});
