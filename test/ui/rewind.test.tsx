import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/core/providers/types.js';
import { CLEAR_TERMINAL } from '../../src/ui/bindings/use-terminal-size.js';
import { initialUiState, reduceBatch } from '../../src/ui/state/ui-store.js';
import type { FakeReply } from '../support/fake-stream.js';
import { KEY, type TestSession, frame, keys, mountApp, openTestSession } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const texts = (request: ModelRequest) =>
  request.messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
const requests: ModelRequest[] = [];

/** Answers each prompt by name; "slow" waits until `release`. */
let release: () => void = () => {};
function answer(request: ModelRequest): FakeReply {
  requests.push(structuredClone(request));
  const last = texts(request).at(-1) ?? '';
  if (last === 'slow') return { text: 'slow answer', wait: new Promise<void>((resolve) => (release = resolve)) };
  return { text: `answer to ${last}` };
}

async function twoPrompts() {
  requests.length = 0;
  session = await openTestSession(answer);
  const app = await mountApp(session);
  await keys(app.rendered, 'first question', KEY.enter);
  await app.until(() => frame(app.rendered).includes('answer to first question'));
  await keys(app.rendered, 'second question', KEY.enter);
  await app.until(() => frame(app.rendered).includes('answer to second question'));
  return app;
}

describe('/rewind in the app', () => {
  it('picks an earlier prompt, takes the conversation back, prints it afresh and puts the prompt in the input', async () => {
    const { rendered, until } = await twoPrompts();
    await keys(rendered, '/rewind', KEY.enter);
    const list = await until(() => frame(rendered).includes('Rewind: go back to before which prompt?') && frame(rendered));
    expect(list).toMatch(/ {2}first question[^\n]*\n[^\n]*› second question/);
    const writesBefore = rendered.frames.length;

    await keys(rendered, KEY.up, KEY.enter);
    expect(frame(rendered)).toContain('Rewind to before "first question"');
    await keys(rendered, KEY.down, KEY.enter);
    const after = await until(() => frame(rendered).includes('The conversation is back to before') && frame(rendered));
    expect(after).toContain('The conversation is back to before "first question" (4 messages taken back)');
    expect(after).toMatch(/│ › first question/);
    expect(rendered.frames.slice(writesBefore)).toContain(CLEAR_TERMINAL);
    expect(session!.opened.session.messages()).toEqual([]);

    // The prompt is back in the input: Enter sends it, and the model hears nothing of what was taken back.
    await keys(rendered, KEY.enter);
    await until(() => requests.length === 3);
    expect(texts(requests[2]!)).toEqual(['first question']);
  });

  it('Esc twice on an empty input opens the picker; Esc closes it; with text in the input Esc does not', async () => {
    const { rendered, until } = await twoPrompts();
    await keys(rendered, KEY.escape);
    expect(frame(rendered)).toContain('press Esc again to rewind to an earlier prompt');
    await keys(rendered, KEY.escape);
    await until(() => frame(rendered).includes('Rewind: go back to before which prompt?'));
    await keys(rendered, KEY.escape);
    await until(() => !frame(rendered).includes('Rewind: go back to before which prompt?'));

    await keys(rendered, 'draft', KEY.escape, KEY.escape);
    expect(frame(rendered)).not.toContain('Rewind: go back');
    expect(frame(rendered)).toContain('› draft');
  });

  it('says why it cannot open: nothing to go back to, or a turn running', async () => {
    requests.length = 0;
    session = await openTestSession(answer);
    const { rendered, until } = await mountApp(session);
    await keys(rendered, '/rewind', KEY.enter);
    await until(() => frame(rendered).includes('no earlier prompt to go back to in this conversation'));

    await keys(rendered, 'slow', KEY.enter);
    await until(() => requests.length === 1);
    await keys(rendered, '/rewind', KEY.enter);
    await until(() => frame(rendered).includes('a turn is running: wait for it (or press Esc), then /rewind'));
    expect(frame(rendered)).not.toContain('Rewind: go back');
    release();
    await until(() => frame(rendered).includes('slow answer'));
  });
});

describe('the transcript drawn again', () => {
  it('starts from the entries given, asks for a fresh print, and forgets the stale context figure', () => {
    const before = reduceBatch(initialUiState({ intro: [{ kind: 'user', text: 'old' }], storedJobs: [], wakeOnComplete: true }), [
      { kind: 'line', entry: { kind: 'info', text: 'said' } },
    ]);
    expect(before.contextTokens).toBe(0);
    const after = reduceBatch(before, [
      { kind: 'redraw', entries: [{ kind: 'user', text: 'kept' }] },
      { kind: 'line', entry: { kind: 'info', text: 'after' } },
    ]);
    expect(after.transcript.entries.map((e) => ('text' in e ? e.text : e.kind))).toEqual(['kept', 'after']);
    // New ids: <Static>, keyed on `redraws`, prints them all again.
    expect(Math.min(...after.transcript.entries.map((e) => e.id))).toBeGreaterThan(
      Math.max(...before.transcript.entries.map((e) => e.id)),
    );
    expect(after.redraws).toBe(1);
    expect(after.contextTokens).toBeUndefined();
  });
});
