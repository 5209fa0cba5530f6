import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMAGE_TOKENS } from '../../../src/core/providers/image-block.js';
import { MAX_SENT_IMAGES } from '../../../src/core/providers/image-window.js';
import type { Message } from '../../../src/core/providers/types.js';
import {
  CompactionError,
  type MessageSizes,
  SUMMARY_PREFIX,
  chooseCompactionSplit,
  compactHistory,
  estimateTokens,
  isToolResultMessage,
  needsCompaction,
  splitForCompaction,
} from '../../../src/core/session/compaction.js';
import { TranscriptWriter, readTranscript } from '../../../src/core/session/transcript.js';
import { fakeStream } from '../../support/fake-stream.js';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string, name: string, input: unknown): Message => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id, name, input }],
});
const result = (id: string, content: string): Message => ({
  role: 'user',
  content: [{ type: 'tool_result', toolUseId: id, content }],
});

/** Three user turns, each with tool calls, the shape of a real session. */
function conversation(): Message[] {
  return [
    user('read the config loader'),
    call('t1', 'read_file', { path: 'src/config.ts' }),
    result('t1', 'export const config = {};'),
    assistant('The loader is empty.'),
    user('add a timeout setting'),
    call('t2', 'edit_file', { path: 'src/config.ts' }),
    result('t2', 'edited'),
    call('t3', 'bash', { command: 'npm test' }),
    result('t3', 'all passed'),
    assistant('Added `timeout`; tests pass.'),
    user('now document it'),
    call('t4', 'edit_file', { path: 'README.md' }),
    result('t4', 'edited'),
    assistant('Documented.'),
  ];
}

/** Every tool result in `messages` answers a tool call also in `messages`. */
function pairsIntact(messages: Message[]): boolean {
  const calls = new Set(messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))));
  return messages.every((m) => m.content.every((b) => b.type !== 'tool_result' || calls.has(b.toolUseId)));
}

// Bytes a re-encoding would change: non-ASCII, a trailing space, CRLF.
const SYSTEM = 'You are outrider — a coding agent.\r\nWorkspace: /repo/ünïcode \n';

describe('estimateTokens and needsCompaction', () => {
  it('estimates about a token per four characters, system prompt included', () => {
    expect(estimateTokens([], 'x'.repeat(400))).toBe(100);
    const withTools = estimateTokens(conversation(), SYSTEM);
    expect(withTools).toBeGreaterThan(estimateTokens(conversation().slice(0, 4), SYSTEM));
    expect(estimateTokens([result('t', 'y'.repeat(4000))])).toBeGreaterThanOrEqual(1000);
  });

  it('triggers past the threshold of the window, less the reserved output', () => {
    expect(needsCompaction({ contextTokens: 85_000, contextWindow: 100_000 })).toBe(false);
    expect(needsCompaction({ contextTokens: 85_001, contextWindow: 100_000 })).toBe(true);
    expect(needsCompaction({ contextTokens: 50_000, contextWindow: 100_000, threshold: 0.5 })).toBe(false);
    expect(needsCompaction({ contextTokens: 50_001, contextWindow: 100_000, threshold: 0.5 })).toBe(true);
    // 200k window, 32k kept for the answer: 0.85 × 168k = 142.8k.
    expect(needsCompaction({ contextTokens: 142_000, contextWindow: 200_000, reservedTokens: 32_000 })).toBe(false);
    expect(needsCompaction({ contextTokens: 143_000, contextWindow: 200_000, reservedTokens: 32_000 })).toBe(true);
  });
});

describe('estimateTokens with a size cache', () => {
  it('gives the same figure as counting afresh, and counts each message once', () => {
    const counted: MessageSizes = new WeakMap();
    const history = conversation();
    expect(estimateTokens(history, SYSTEM, counted)).toBe(estimateTokens(history, SYSTEM));
    expect(history.every((message) => counted.has(message))).toBe(true);
    // A cached size is used as it is: the history's messages never change once in it.
    counted.set(history[0]!, { chars: 4000, images: 0 });
    expect(estimateTokens(history.slice(0, 1), '', counted)).toBe(1000);
    const longer = [...history, result('t', 'z'.repeat(400))];
    expect(estimateTokens(longer, SYSTEM)).toBeGreaterThan(estimateTokens(history, SYSTEM));
  });

  it('counts an image at its fixed cost, and only as many images as a request sends', () => {
    const image = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0KGgo=' };
    const withImages = (count: number): Message[] =>
      Array.from({ length: count }, () => ({ role: 'user' as const, content: [{ type: 'text' as const, text: 'look' }, image] }));
    const text = estimateTokens(withImages(1).map((m) => ({ ...m, content: m.content.slice(0, 1) })));
    expect(estimateTokens(withImages(1)) - text).toBe(IMAGE_TOKENS);
    // 90 screenshots in the history, 20 sent: the estimate is 20 images' worth, not 90.
    const ninety = estimateTokens(withImages(90));
    const twenty = estimateTokens(withImages(MAX_SENT_IMAGES));
    expect(ninety - twenty).toBe(Math.ceil(((90 - MAX_SENT_IMAGES) * (16 + 4)) / 4));
    expect(needsCompaction({ contextTokens: ninety, contextWindow: 200_000, reservedTokens: 32_000 })).toBe(false);
  });
});

describe('splitForCompaction', () => {
  it('keeps the last user turns whole, starting at a typed message', () => {
    const history = conversation();
    const { older, recent } = splitForCompaction(history);
    expect(older).toEqual(history.slice(0, 4));
    expect(recent).toEqual(history.slice(4));
    expect(recent[0]).toEqual(user('add a timeout setting'));
    expect(splitForCompaction(history, 1).recent).toEqual(history.slice(10));
  });

  it('never parts a tool call from its result, wherever the turns fall', () => {
    const history = [...conversation(), user('and a changelog'), call('t5', 'edit_file', {}), result('t5', 'ok')];
    for (let keep = 1; keep <= 5; keep++) {
      const { older, recent } = splitForCompaction(history, keep);
      expect(older.length + recent.length).toBe(history.length);
      expect(pairsIntact(recent)).toBe(true);
      if (older.length > 0) expect(isToolResultMessage(recent[0])).toBe(false);
    }
  });

  it('finds nothing worth compacting in a short history or behind a lone summary', () => {
    const history = conversation();
    expect(splitForCompaction(history, 3)).toEqual({ older: [], recent: history });
    expect(splitForCompaction(history, 9)).toEqual({ older: [], recent: history });
    const summarised = [user(`${SUMMARY_PREFIX}\nearlier work`), ...history.slice(4)];
    expect(splitForCompaction(summarised, 2)).toEqual({ older: [], recent: summarised });
    expect(splitForCompaction(summarised, 1).older).toHaveLength(7);
  });

  it('cuts inside one long turn, between steps, when no earlier turn exists', () => {
    const history: Message[] = [user('refactor everything')];
    for (let i = 1; i <= 6; i++) history.push(call(`c${i}`, 'read_file', { i }), result(`c${i}`, `file ${i}`));
    const { older, recent } = chooseCompactionSplit(history, 2);
    expect(older).toEqual(history.slice(0, 9));
    expect(recent).toEqual(history.slice(9));
    expect(recent[0].role).toBe('assistant');
    expect(pairsIntact(recent)).toBe(true);
    expect(chooseCompactionSplit([user('hi')], 2).older).toEqual([]);
  });
});

describe('compactHistory', () => {
  it('makes one call with the same system prompt bytes and no tools, keeping the last turns verbatim', async () => {
    const history = conversation();
    const stream = fakeStream([{ text: 'Read src/config.ts; it was empty.', usage: { input: 300, output: 40 } }]);
    const out = await compactHistory(
      { history, stream, model: 'claude-sonnet-4-5', maxTokens: 2048, system: SYSTEM, keepRecentTurns: 2 },
      new AbortController().signal,
    );

    expect(stream.requests).toHaveLength(1);
    const request = stream.requests[0];
    expect(Buffer.from(request.system).equals(Buffer.from(SYSTEM))).toBe(true);
    expect(request.tools).toEqual([]);
    expect(request).toMatchObject({ model: 'claude-sonnet-4-5', maxTokens: 2048 });
    expect(request.messages).toHaveLength(1);
    const prompt = request.messages[0].content[0];
    expect(prompt.type === 'text' && prompt.text).toContain('User: read the config loader');
    expect(prompt.type === 'text' && prompt.text).toContain('Assistant called tool read_file with {"path":"src/config.ts"}');
    expect(prompt.type === 'text' && prompt.text).toContain('Result of read_file: export const config = {};');
    for (const topic of ['Files read, created or changed', 'Decisions made', 'Open tasks', 'every sub-agent job']) {
      expect(prompt.type === 'text' && prompt.text).toContain(topic);
    }
    // Only the older part is summarised; tool blocks travel as text, never as blocks.
    expect(prompt.type === 'text' && prompt.text).not.toContain('add a timeout setting');
    expect(request.messages[0].content.every((b) => b.type === 'text')).toBe(true);

    expect(out.summary).toEqual(user(`${SUMMARY_PREFIX}\nRead src/config.ts; it was empty.`));
    expect(out.history).toEqual([out.summary, ...history.slice(4)]);
    expect(out.history.slice(1)).toStrictEqual(history.slice(4));
    expect(out).toMatchObject({ removedMessages: 4, keptMessages: 10, usage: { input: 300, output: 40 } });
  });

  it('carries the sub-agent job state into the request and after the summary', async () => {
    const jobs = '- sub-1 (explore, running): map the test suite\n- sub-2 (explore, done, not yet delivered): list configs';
    const stream = fakeStream([{ text: 'Summary text.' }]);
    const out = await compactHistory(
      { history: conversation(), stream, model: 'm', maxTokens: 1000, system: SYSTEM, extraState: jobs },
      new AbortController().signal,
    );
    const prompt = stream.requests[0].messages[0].content[0];
    expect(prompt.type === 'text' && prompt.text).toContain(`<sub-agent-jobs>\n${jobs}\n</sub-agent-jobs>`);
    const text = out.summary.content[0];
    expect(text.type === 'text' && text.text).toBe(
      `${SUMMARY_PREFIX}\nSummary text.\n\n[Sub-agent jobs when this summary was written]\n${jobs}`,
    );
  });

  it('shortens huge tool output, and the whole text to fit maxInputTokens', async () => {
    const history = [
      user('look'),
      call('t1', 'bash', { command: 'cat big' }),
      result('t1', `HEAD${'z'.repeat(50_000)}TAIL`),
      assistant('seen'),
      ...[user('next'), assistant('ok'), user('last'), assistant('done')],
    ];
    const stream = fakeStream([{ text: 'ok' }, { text: 'ok' }]);
    await compactHistory({ history, stream, model: 'm', maxTokens: 100, system: SYSTEM }, new AbortController().signal);
    const clipped = stream.requests[0].messages[0].content[0];
    expect(clipped.type === 'text' && clipped.text.length).toBeLessThan(5_000);
    expect(clipped.type === 'text' && clipped.text).toMatch(/Result of bash: HEADz+\n\[… \d+ characters left out …\]\nz+TAIL/);

    const many = Array.from({ length: 200 }, (_, i) => [
      user(`question ${i} ${'q'.repeat(400)}`),
      assistant(`answer ${i}`),
    ]).flat();
    await compactHistory(
      { history: many, stream, model: 'm', maxTokens: 100, system: SYSTEM, maxInputTokens: 8_000 },
      new AbortController().signal,
    );
    const fitted = stream.requests[1].messages[0].content[0];
    expect(fitted.type === 'text' && fitted.text.length).toBeLessThan(8_000 * 4);
    expect(fitted.type === 'text' && fitted.text).toContain('User: question 0 ');
    expect(fitted.type === 'text' && fitted.text).toContain('Assistant: answer 197');
  });

  it('compacts one long turn inside it', async () => {
    const history: Message[] = [user('refactor everything')];
    for (let i = 1; i <= 5; i++) history.push(call(`c${i}`, 'read_file', { i }), result(`c${i}`, `file ${i}`));
    const out = await compactHistory(
      {
        history,
        stream: fakeStream([{ text: 'Task: refactor everything. Read files 1-3.' }]),
        model: 'm',
        maxTokens: 100,
        system: SYSTEM,
      },
      new AbortController().signal,
    );
    expect(out.history).toEqual([out.summary, ...history.slice(7)]);
    expect(pairsIntact(out.history)).toBe(true);
  });

  it('refuses when there is nothing to compact or the summary is empty, leaving the history alone', async () => {
    const short = [user('hi'), assistant('hello')];
    const stream = fakeStream([{ text: '' }]);
    await expect(
      compactHistory({ history: short, stream, model: 'm', maxTokens: 100, system: SYSTEM }, new AbortController().signal),
    ).rejects.toThrow(
      new CompactionError('the conversation is too short to compact; start a new session or shorten the request'),
    );
    expect(stream.requests).toHaveLength(0);
    const history = conversation();
    await expect(
      compactHistory({ history, stream, model: 'm', maxTokens: 100, system: SYSTEM }, new AbortController().signal),
    ).rejects.toThrow('the model returned an empty summary; the history was left as it was');
    expect(history).toEqual(conversation());
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = compactHistory(
      { history: conversation(), stream: fakeStream([{ hang: true }]), model: 'm', maxTokens: 100, system: SYSTEM },
      controller.signal,
    );
    controller.abort();
    await expect(pending).rejects.toThrow('aborted');
  });

  it('replays from the transcript to the same history', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'outrider-compaction-')), 'transcript.jsonl');
    const writer = new TranscriptWriter(file, { sessionId: 's', cwd: '/repo', provider: 'anthropic', model: 'm' });
    const history = conversation();
    history.forEach((m) => writer.append(m));
    const out = await compactHistory(
      {
        history,
        stream: fakeStream([{ text: 'short' }]),
        model: 'm',
        maxTokens: 100,
        system: SYSTEM,
        extraState: '- sub-1 running',
      },
      new AbortController().signal,
    );
    writer.compaction(out);
    writer.append(user('after'));
    expect(readTranscript(file).history).toEqual([...out.history, user('after')]);
    const record = JSON.parse(readFileSync(file, 'utf8').split('\n')[history.length + 1]);
    expect(Object.keys(record).sort()).toEqual(['at', 'keptMessages', 'removedMessages', 'summary', 'type']);
  });
});
