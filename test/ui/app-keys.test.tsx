import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/core/providers/types.js';
import { KEY, type TestSession, frame, fromChild, keys, mountApp, openTestSession, settle } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const SHIFT_TAB = '\u001B[Z';
const lastText = (request: ModelRequest) => JSON.stringify(request.messages[request.messages.length - 1]);
/** The footer's status line: the second line from the bottom. */
const statusLine = (text: string) => text.split('\n').at(-2) ?? '';

describe('keys', () => {
  it('Ctrl+C interrupts a running turn on the first press, and the sub-agent keeps running', async () => {
    let parentCalls = 0;
    session = await openTestSession((request) => {
      if (fromChild(request.system)) return { hang: true };
      parentCalls += 1;
      if (parentCalls === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'keep going' } }] };
      return { hang: true };
    });
    const s = session;
    const { rendered, quits, until } = await mountApp(s);
    await keys(rendered, 'start one', KEY.enter);
    await until(() => parentCalls === 2 && /^sub-1 /m.test(frame(rendered)));
    await keys(rendered, KEY.ctrlC);
    await until(() => frame(rendered).includes('■ interrupted (the sub-agent keeps running)'));
    expect(quits.count).toBe(0);
    expect(frame(rendered)).not.toContain('press Ctrl+C again');
    expect(s.opened.agents.manager.get('sub-1').state).toBe('running');
  });

  it('Ctrl+C clears a draft when idle, then quits on two presses of an empty input', async () => {
    session = await openTestSession([]);
    const { rendered, quits } = await mountApp(session);
    await keys(rendered, 'half a thought');
    await keys(rendered, KEY.ctrlC);
    expect(frame(rendered)).not.toContain('half a thought');
    expect(frame(rendered)).not.toContain('press Ctrl+C again');
    await keys(rendered, KEY.ctrlC);
    expect(frame(rendered)).toContain('press Ctrl+C again to quit');
    await keys(rendered, KEY.ctrlC);
    expect(quits.count).toBe(1);
  });

  it('Shift+Tab cycles the permission mode, the footer shows it, and the gate follows', async () => {
    session = await openTestSession([
      { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'hi' } }] },
      { text: 'Wrote it.' },
    ]);
    const s = session;
    const { rendered, until } = await mountApp(s);
    expect(statusLine(frame(rendered))).toMatch(/^default · /);
    await keys(rendered, SHIFT_TAB);
    expect(statusLine(frame(rendered))).toMatch(/^accept-edits · /);
    expect(s.opened.gate.mode).toBe('accept-edits');
    // An edit inside the workspace no longer asks.
    await keys(rendered, 'write notes', KEY.enter);
    await until(() => frame(rendered).includes('Wrote it.'));
    expect(frame(rendered)).not.toContain('asks');
    await keys(rendered, SHIFT_TAB, SHIFT_TAB);
    expect(statusLine(frame(rendered))).toMatch(/^yolo · /);
    await keys(rendered, SHIFT_TAB);
    expect(statusLine(frame(rendered))).toMatch(/^default · /);
    expect(s.opened.gate.mode).toBe('default');
  });
});

describe('the status line', () => {
  it('shows the context as a share of the window and the cost so far, and estimates the context after /compact', async () => {
    const big = 'word '.repeat(4000);
    session = await openTestSession((request) => {
      if (request.system.includes('summar') && lastText(request).includes('Summarize')) return { text: 'A short summary.' };
      return { text: `Answer ${request.messages.length}. ${big}`, usage: { input: 100_000, output: 2000 } };
    });
    const { rendered, until } = await mountApp(session);
    for (const prompt of ['one', 'two', 'three']) {
      await keys(rendered, prompt, KEY.enter);
      await until(() => !frame(rendered).includes('Esc to interrupt') && frame(rendered).includes(`› ${prompt}`));
    }
    const before = statusLine(frame(rendered));
    // 102k of Sonnet 5's 1M window.
    expect(before).toMatch(/ctx 10% · \$\d+\.\d\d/);
    await keys(rendered, '/compact', KEY.enter);
    await until(() => frame(rendered).includes('compacted the conversation'));
    await settle();
    const after = statusLine(frame(rendered));
    expect(after).toMatch(/ctx \d+%/);
    expect(after).not.toContain('ctx 10%');
  });
});
