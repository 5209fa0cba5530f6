import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/core/providers/types.js';
import { KEY, type TestSession, frame, fromChild, keys, mountApp, openTestSession, resize, settle } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const lastText = (request: ModelRequest) => JSON.stringify(request.messages[request.messages.length - 1]);

/** The lines from the first line matching `from` to the end of the frame: the live area, when `from` starts it. */
function linesFrom(text: string, from: RegExp): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => from.test(line));
  return start < 0 ? [] : lines.slice(start);
}

describe('the app on a short terminal', () => {
  it('collapses rows so the live area stays shorter than the screen, and follows a resize', async () => {
    session = await openTestSession((request) => {
      if (fromChild(request.system)) return { hang: true };
      if (lastText(request).includes('tool_result')) return { hang: true };
      return { toolCalls: Array.from({ length: 8 }, (_, i) => ({ name: 'agent_start', args: { task: `task ${i + 1}` } })) };
    }, {});
    const { rendered, until } = await mountApp(session);
    resize(rendered, { rows: 14 });
    await keys(rendered, 'start eight', KEY.enter);
    // More than 3 in one turn (agents.approve): the user is asked once, as for a tool, and allows.
    await until(() => frame(rendered).includes('Allow the agent to start 8 sub-agents this turn?'));
    await keys(rendered, 'y');
    const text = await until(() => /\+\d+ more/.test(frame(rendered)) && frame(rendered));
    const live = linesFrom(text, /Esc to interrupt/);
    expect(live.length).toBeLessThanOrEqual(13);
    expect(live.filter((line) => /^sub-\d+ /.test(line))).toHaveLength(6);
    // Four run and four wait for a slot (four at once by default).
    expect(live).toContain('+2 more queued');
    expect(live.at(-1)).toContain('Esc interrupt');

    resize(rendered, { rows: 10 });
    const shorter = await until(() => frame(rendered).includes('+6 more (2 running, 4 queued)') && frame(rendered));
    expect(linesFrom(shorter, /Esc to interrupt/).length).toBeLessThanOrEqual(9);
    resize(rendered, { rows: 40 });
    await until(() => !/\+\d+ more/.test(frame(rendered)) && /^sub-8 /m.test(frame(rendered)));
  });
});

describe('the working line', () => {
  it('shows a spinner, what the turn waits for and for how long, moving with the clock', async () => {
    session = await openTestSession([{ hang: true }]);
    const { rendered, clock, until } = await mountApp(session);
    await keys(rendered, 'think hard', KEY.enter);
    const first = await until(
      () => frame(rendered).match(/^(.) waiting for the model · turn (\d+)s · Esc to interrupt$/m) ?? false,
    );
    clock.advance(1000);
    await settle();
    const second = frame(rendered).match(/^(.) waiting for the model · turn (\d+)s/m)!;
    expect(Number(second[2])).toBe(Number(first[2]) + 1);
    clock.advance(200);
    await settle();
    expect(frame(rendered).match(/^(.) waiting/m)![1]).not.toBe(second[1]);
    await keys(rendered, KEY.escape);
    await until(() => !frame(rendered).includes('Esc to interrupt'));
  });
});
