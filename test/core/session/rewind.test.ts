import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import { RewindError } from '../../../src/core/session/rewind.js';
import { TranscriptWriter, readTranscript } from '../../../src/core/session/transcript.js';
import { readTurnEnds } from '../../../src/core/session/turn-ends.js';
import type { FakeReply } from '../../support/fake-stream.js';
import { isChildRequest, testDirs, useTestSessions } from '../../support/test-session.js';
import { until } from '../../support/until.js';

const open = useTestSessions();
const yolo = { permissionMode: 'yolo' as const };
const never = new AbortController().signal;

/** The text of the request's last message (a prompt, or tool results). */
const lastText = (request: ModelRequest) => JSON.stringify(request.messages.at(-1));
const sentTexts = (request: ModelRequest) =>
  request.messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));

/** The parent writes files for "first" and "second"; any tool result is answered with a line of text. */
function twoPrompts(request: ModelRequest): FakeReply {
  const last = lastText(request);
  if (last.includes('tool_result')) return { text: 'done' };
  if (last.includes('first: make a'))
    return {
      toolCalls: [
        { name: 'write_file', args: { path: 'a.txt', content: 'A\n' } },
        { name: 'edit_file', args: { path: 'notes.txt', old_string: 'original', new_string: 'first' } },
      ],
    };
  if (last.includes('second: make b'))
    return {
      toolCalls: [
        { name: 'write_file', args: { path: 'b.txt', content: 'B\n' } },
        { name: 'edit_file', args: { path: 'notes.txt', old_string: 'first', new_string: 'second' } },
      ],
    };
  return { text: 'ok' };
}

describe('/rewind', () => {
  it('takes the conversation back to before a prompt, on disk too, and puts the files back', async () => {
    const dirs = testDirs();
    writeFileSync(path.join(dirs.cwd, 'notes.txt'), 'original\n');
    const { session, submit, stream } = await open(twoPrompts, { flags: yolo, dirs });
    const file = (name: string) => path.join(dirs.cwd, name);
    await submit('first: make a');
    await submit('second: make b');
    expect(readFileSync(file('notes.txt'), 'utf8')).toBe('second\n');
    expect(session.session.messages()).toHaveLength(8);

    expect(session.rewind.points()).toEqual([
      { index: 0, text: 'first: make a', files: ['a.txt', 'notes.txt', 'b.txt'] },
      { index: 4, text: 'second: make b', files: ['b.txt', 'notes.txt'] },
    ]);

    // The conversation alone: the files stay as they are.
    const back = await session.rewind.rewind(4, 'conversation');
    expect(back).toEqual({ prompt: 'second: make b', removedMessages: 4 });
    expect(session.session.messages()).toHaveLength(4);
    expect(readTranscript(session.paths.transcript).history).toEqual(JSON.parse(JSON.stringify(session.session.messages())));
    expect(readFileSync(file('notes.txt'), 'utf8')).toBe('second\n');
    expect(session.rewind.points().map((p) => p.text)).toEqual(['first: make a']);

    // Code and conversation: every file the agent changed since the first prompt, as it was.
    const first = await session.rewind.rewind(0, 'code-and-conversation');
    expect(first).toEqual({
      prompt: 'first: make a',
      removedMessages: 4,
      files: { restored: ['notes.txt'], deleted: ['a.txt', 'b.txt'], conflicts: [], skipped: [] },
    });
    expect(readFileSync(file('notes.txt'), 'utf8')).toBe('original\n');
    expect(existsSync(file('a.txt'))).toBe(false);
    expect(existsSync(file('b.txt'))).toBe(false);
    expect(session.session.messages()).toEqual([]);
    expect(readTranscript(session.paths.transcript).history).toEqual([]);
    expect(session.rewind.points()).toEqual([]);
    // The last response's context figure told of the history taken back: compaction estimates until the next.
    expect(session.session.contextTokens()).toBe(0);

    // The model never hears of what was taken back.
    await submit('third');
    expect(sentTexts(stream.requests.at(-1)!)).toEqual(['third']);
  });

  it('a resumed session shows the rewound history and can still put files back', async () => {
    const dirs = testDirs();
    writeFileSync(path.join(dirs.cwd, 'notes.txt'), 'original\n');
    const { session, submit } = await open(twoPrompts, { flags: yolo, dirs });
    await submit('first: make a');
    await submit('second: make b');
    await session.rewind.rewind(4, 'conversation');
    const kept = JSON.parse(JSON.stringify(session.session.messages())) as unknown;

    const again = await open(twoPrompts, { flags: { ...yolo, resume: session.session.id }, dirs });
    expect(again.session.session.messages()).toEqual(kept);
    // Matched by their text's hash: the prompt kept, and every change since it (the rewound prompt's too).
    expect(again.session.rewind.points()).toEqual([{ index: 0, text: 'first: make a', files: ['a.txt', 'notes.txt', 'b.txt'] }]);

    const code = await again.session.rewind.rewind(0, 'code');
    expect(code).toEqual({
      prompt: '',
      removedMessages: 0,
      files: { restored: ['notes.txt'], deleted: ['a.txt', 'b.txt'], conflicts: [], skipped: [] },
    });
    expect(readFileSync(path.join(dirs.cwd, 'notes.txt'), 'utf8')).toBe('original\n');
    expect(again.session.session.messages()).toEqual(kept);

    // A prompt of the resumed run is a point too, and numbered after the earlier ones.
    await again.submit('first: make a');
    expect(again.session.rewind.points().map((p) => [p.index, p.text, p.files])).toEqual([
      [0, 'first: make a', ['a.txt', 'notes.txt', 'b.txt']],
      [4, 'first: make a', ['a.txt', 'notes.txt']],
    ]);
  });

  it('a resumed session matches prompts past one whose text the transcript redacted, and past notes the log never knew', async () => {
    const dirs = testDirs();
    const { session, submit } = await open(() => ({ text: 'ok' }), { dirs });
    await submit('first');
    await submit('my key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789');
    await submit('third');
    const again = await open(() => ({ text: 'ok' }), { flags: { resume: session.session.id }, dirs });
    expect(JSON.stringify(again.session.session.messages())).toContain('my key is [redacted]');
    expect(again.session.rewind.points().map((p) => [p.index, p.text])).toEqual([
      [0, 'first'],
      [4, 'third'],
    ]);
  });

  it('is refused while a turn runs, and works once it has ended', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const { session, submit, stream } = await open((request) =>
      lastText(request).includes('slow') ? { text: 'at last', wait: held } : { text: 'ok' },
    );
    await submit('quick');
    const turn = submit('slow');
    await until(() => stream.requests.length === 2, { what: 'the second request' });
    await expect(session.rewind.rewind(0, 'conversation')).rejects.toThrow(
      new RewindError('a turn is running: wait for it to end (or press Esc to interrupt it), then /rewind'),
    );
    expect(session.session.messages()).toHaveLength(3);
    release();
    await turn;
    await expect(session.rewind.rewind(2, 'conversation')).resolves.toMatchObject({ prompt: 'slow', removedMessages: 2 });
    await expect(session.rewind.rewind(2, 'conversation')).rejects.toThrow(/that prompt is no longer in the conversation/);
  });

  it('does not stop a sub-agent; its edits in the checkout are put back, and its completion stays owed', async () => {
    let finish: () => void = () => {};
    const childDone = new Promise<void>((resolve) => (finish = resolve));
    const dirs = testDirs();
    const { session, submit, stream } = await open(
      (request) => {
        if (isChildRequest(request)) {
          if (request.messages.length === 1)
            return { toolCalls: [{ name: 'write_file', args: { path: 'child.txt', content: 'from the child\n' } }] };
          return { text: 'child report', wait: childDone };
        }
        const last = lastText(request);
        if (last.includes('delegate'))
          return { toolCalls: [{ name: 'agent_start', args: { task: 'write child.txt', agent: 'general' } }] };
        return { text: 'ok' };
      },
      { flags: yolo, dirs },
    );
    await submit('delegate');
    // The child's next request comes once its write_file returned, and with it the checkpoint.
    await until(() => stream.requests.some((r) => isChildRequest(r) && r.messages.length === 3), {
      what: 'the child to ask again after writing child.txt',
    });
    expect(existsSync(path.join(dirs.cwd, 'child.txt'))).toBe(true);
    await submit('later');

    const outcome = await session.rewind.rewind(0, 'code-and-conversation');
    expect(outcome.files?.deleted).toEqual(['child.txt']);
    expect(session.agents.manager.get('sub-1').state).toBe('running');

    finish();
    await until(() => session.agents.manager.get('sub-1').state === 'done', { what: 'sub-1 to end' });
    expect(session.agents.manager.undelivered()).toEqual(['sub-1']);
    await submit('after');
    const sent = JSON.stringify(stream.requests.filter((r) => !isChildRequest(r)).at(-1)!.messages);
    expect(sent).toContain('Sub-agent sub-1 completed');
    expect(sent).not.toContain('delegate');
  });

  it('after a compaction offers the prompts still in the history, and the transcript replays the same history', async () => {
    const { session, submit } = await open((request) => {
      if (request.tools.length === 0) return { text: 'the summary' };
      return { text: `answer to ${sentTexts(request).at(-1)}` };
    });
    for (const prompt of ['one', 'two', 'three', 'four']) await submit(prompt);
    await session.compact(never);
    const points = session.rewind.points();
    const texts = points.map((p) => p.text);
    expect(texts.length).toBeGreaterThan(0);
    expect(['one', 'two', 'three', 'four'].slice(-texts.length)).toEqual(texts);
    const last = points.at(-1)!;
    await session.rewind.rewind(last.index, 'conversation');
    expect(readTranscript(session.paths.transcript).history).toEqual(JSON.parse(JSON.stringify(session.session.messages())));
    expect(session.rewind.points().map((p) => p.text)).toEqual(texts.slice(0, -1));
  });
});

describe('the transcript of a rewind', () => {
  const message = (text: string) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] });

  it('replays to the history before the messages taken back, and marks what was written about them', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'outrider-rewind-')), 'transcript.jsonl');
    const writer = new TranscriptWriter(file, { sessionId: 's', cwd: '/', provider: 'anthropic', model: 'm' }, { env: {} });
    writer.event('system_prompt', {});
    writer.append(message('one'));
    writer.event('run_end', { cause: { kind: 'aborted' } });
    writer.append(message('two'));
    writer.append(message('three'));
    writer.event('run_end', { cause: { kind: 'aborted' } });
    writer.rewind(2);
    writer.append(message('four'));
    writer.close();
    const read = readTranscript(file);
    expect(read.history).toEqual([message('one'), message('four')]);
    expect(read.events.map((e) => [e.name, e.messageCount, e.takenBack ?? false])).toEqual([
      ['system_prompt', 0, false],
      ['run_end', 1, false],
      ['run_end', 3, true],
    ]);
    expect(read.warnings).toEqual([]);
  });

  it("keeps what the taken-back turns spent: a resumed session's cost does not go back", async () => {
    const dirs = testDirs();
    const usage = { input: 1_000, output: 100 };
    const reply = (): FakeReply => ({ text: 'ok', usage });
    const { session, submit } = await open(reply, { dirs });
    await submit('one');
    await submit('two');
    await submit('three');
    const spent = session.totals();
    expect(spent.input).toBe(3_000);
    await session.rewind.rewind(4, 'conversation');
    expect(session.totals()).toEqual(spent);
    await session.close();

    const again = await open(reply, { flags: { resume: session.session.id }, dirs });
    expect(again.session.totals()).toEqual(spent);
    // The turns taken back are not drawn again (they were not interrupted; none are).
    expect(again.session.earlierTurnEnds).toEqual([]);
  });

  it('does not draw again the end of a turn it took back', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'outrider-rewind-')), 'transcript.jsonl');
    const writer = new TranscriptWriter(file, { sessionId: 's', cwd: '/', provider: 'anthropic', model: 'm' }, { env: {} });
    const usage = (input: number) => ({ input, output: 0, cacheRead: 0, cacheWrite: 0 });
    writer.append(message('one'));
    writer.event('run_end', { cause: { kind: 'aborted' }, parentUsage: usage(10) });
    writer.append(message('two'));
    writer.event('run_end', { cause: { kind: 'aborted' }, parentUsage: usage(30) });
    writer.rewind(1);
    writer.close();
    const read = readTurnEnds(file);
    expect(read.ends).toEqual([{ messageCount: 1, cause: { kind: 'aborted' } }]);
    expect(read.parentUsage).toEqual([{ model: 'm', usage: usage(30) }]);
  });

  it('reads a hand-edited rewind record safely: more than the history empties it, a bad count is skipped', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'outrider-rewind-')), 'transcript.jsonl');
    const writer = new TranscriptWriter(file, { sessionId: 's', cwd: '/', provider: 'anthropic', model: 'm' }, { env: {} });
    writer.append(message('one'));
    writer.close();
    appendFileSync(file, `${JSON.stringify({ type: 'rewind', removedMessages: -1, at: '' })}\n`);
    appendFileSync(file, `${JSON.stringify({ type: 'rewind', removedMessages: 'all', at: '' })}\n`);
    expect(readTranscript(file).history).toEqual([message('one')]);
    expect(readTranscript(file).skippedLines).toEqual([3, 4]);
    appendFileSync(file, `${JSON.stringify({ type: 'rewind', removedMessages: 99, at: '' })}\n`);
    expect(readTranscript(file).history).toEqual([]);
  });
});
