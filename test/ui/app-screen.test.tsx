import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/core/providers/types.js';
import { KEY, type TestSession, frame, fromChild, keys, mountApp, openTestSession, resize } from './harness.js';

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
    const text = await until(() => /\+\d+ more/.test(frame(rendered)) && frame(rendered));
    const live = linesFrom(text, /working…/);
    expect(live.length).toBeLessThanOrEqual(13);
    expect(live.filter((line) => /^sub-\d+ /.test(line))).toHaveLength(6);
    // Four run and four wait for a slot (four at once by default).
    expect(live).toContain('+2 more queued');
    expect(live.at(-1)).toContain('Esc interrupt');

    resize(rendered, { rows: 10 });
    const shorter = await until(() => frame(rendered).includes('+6 more (2 running, 4 queued)') && frame(rendered));
    expect(linesFrom(shorter, /working…/).length).toBeLessThanOrEqual(9);
    resize(rendered, { rows: 40 });
    await until(() => !/\+\d+ more/.test(frame(rendered)) && /^sub-8 /m.test(frame(rendered)));
  });
});
