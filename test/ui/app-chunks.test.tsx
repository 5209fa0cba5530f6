import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/core/providers/types.js';
import { type FakeReply, fakeStream } from '../support/fake-stream.js';
import { KEY, type TestSession, frame, fromChild, keys, mountApp, openTestSession } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

/** The input's first line as shown: what follows the prompt mark, up to the border. */
function inputLine(text: string): string {
  const lines = text.split('\n').filter((line) => /^│ [›…] /.test(line));
  expect(lines.length).toBeGreaterThan(0);
  return lines
    .at(-1)!
    .replace(/^│ [›…] /, '')
    .replace(/\s*│$/, '');
}

const PASTE_START = '\u001B[200~';
const PASTE_END = '\u001B[201~';

/**
 * Keys that arrive in one read reach Ink's useInput as one event: each chunk below is written
 * in one `stdin.write`, and the app must act on it as on the same keys typed one by one.
 */
describe('keys that arrive in one read', () => {
  it.each([
    ['Ctrl+U then text', ['abc', '\u0015xyz'], 'xyz'],
    ['text then Backspace', ['ab\u007f'], 'a'],
    ['text then BS (Ctrl+H)', ['ab\b'], 'a'],
    ['text then Ctrl+W', ['hi there\u0017'], 'hi'],
    ['Ctrl+A then a capital', ['hello', '\u0001X'], 'Xhello'],
    ['Ctrl+E after Ctrl+A, then text', ['bc', '\u0001a\u0005d'], 'abcd'],
    ['Ctrl+A, Ctrl+K (the app’s key) then text: Ctrl+K acts at its place', ['abc', '\u0001\u000bxy'], 'xy'],
    ['Ctrl+C on a draft (the app’s key) acts at its place: it clears what came before', ['abc\u0003xyz'], 'xyz'],
  ])('%s', async (_, chunks, shown) => {
    session = await openTestSession([]);
    const { rendered } = await mountApp(session);
    await keys(rendered, ...chunks);
    expect(inputLine(frame(rendered))).toBe(shown);
  });

  it('a chunk that ends in Enter inserts, then sends', async () => {
    session = await openTestSession([{ text: 'Got it.' }]);
    const { rendered, until } = await mountApp(session);
    await keys(rendered, 'junk\u0015hello\r');
    await until(() => frame(rendered).includes('Got it.'));
    expect(frame(rendered)).toContain('› hello');
    expect(frame(rendered)).not.toContain('junk');
  });

  it('a chunk with line breaks inside (a paste without bracketed paste) keeps its lines, after a Ctrl+U before it', async () => {
    session = await openTestSession([]);
    const { rendered } = await mountApp(session);
    await keys(rendered, 'old', '\u0015one\ntwo');
    const text = frame(rendered);
    expect(text).not.toContain('old');
    expect(text).toMatch(/│ › one\s*│\n│ {3}two/);
  });

  it('a bracketed paste is not split: a control character in it is not acted on (the line editor drops it)', async () => {
    const sent: string[] = [];
    session = await openTestSession((request) => {
      sent.push(JSON.stringify(request.messages.at(-1)));
      return { text: 'Pasted.' };
    });
    const { rendered, until } = await mountApp(session);
    await keys(rendered, 'keep ', `${PASTE_START}one\u0015two\u007f${PASTE_END}`, '!');
    // Neither was acted on (no Ctrl+U, no Backspace); inserted text keeps no control characters (line-editor.ts).
    expect(inputLine(frame(rendered))).toBe('keep onetwo!');
    await keys(rendered, KEY.enter);
    await until(() => frame(rendered).includes('Pasted.'));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('"text":"keep onetwo!"');
  });

  it('a Ctrl+C in a chunk while a turn runs interrupts it once, and the text around it stays in the input', async () => {
    let calls = 0;
    session = await openTestSession(() => {
      calls += 1;
      return { hang: true };
    });
    const { rendered, quits, until } = await mountApp(session);
    await keys(rendered, 'go', KEY.enter);
    await until(() => calls === 1 && frame(rendered).includes('Esc to interrupt'));
    await keys(rendered, 'more\u0003text');
    await until(() => frame(rendered).includes('■ interrupted'));
    const text = frame(rendered);
    expect(text.split('■ interrupted').length - 1).toBe(1);
    expect(text).not.toContain('press Ctrl+C again');
    expect(inputLine(text)).toBe('moretext');
    expect(quits.count).toBe(0);
    expect(calls).toBe(1);
  });

  it('the sub-agent message line takes a chunk key by key: Ctrl+U clears, the x after it is text, not stop', async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const lastText = (request: ModelRequest) => JSON.stringify(request.messages[request.messages.length - 1]);
    const stream = fakeStream((request): FakeReply => {
      if (fromChild(request.system)) {
        if (request.messages.length === 1) return { wait: held, toolCalls: [{ name: 'list_dir', args: { path: '.' } }] };
        return { text: 'counted' };
      }
      if (lastText(request).includes('tool_result')) return { text: 'Started.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'count the files' } }] };
    });
    session = await openTestSession([], { stream });
    const s = session;
    const { rendered, until } = await mountApp(s);
    await keys(rendered, 'go', KEY.enter);
    await until(() => frame(rendered).includes('Started.') && s.opened.agents.manager.get('sub-1').state === 'running');
    await keys(rendered, '/agents', KEY.enter);
    await until(() => frame(rendered).includes('Sub-agents (1)'));
    await keys(rendered, KEY.enter, KEY.enter, 'wrong\u0015x and md files toox\u007f\r');
    await until(() => frame(rendered).includes('Messages: 1 message from you waiting'));
    expect(s.opened.agents.manager.get('sub-1').state).toBe('running');
    release();
    await until(() => s.opened.agents.manager.get('sub-1').state === 'done');
    const second = stream.requests.filter((r) => fromChild(r.system))[1]!;
    expect(lastText(second)).toContain('Message from the user:\\nx and md files too"');
    // The main input, inactive meanwhile, took none of it.
    await keys(rendered, KEY.escape, KEY.escape);
    await until(() => !frame(rendered).includes('Sub-agents (1)'));
    expect(inputLine(frame(rendered))).toBe('');
  });
});
