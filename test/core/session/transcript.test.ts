import { appendFileSync, mkdtempSync, readFileSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/providers/types.js';
import {
  type NewTranscriptMeta,
  TranscriptError,
  TranscriptWriter,
  readTranscript,
  keyVariableForms,
  redactSecrets,
} from '../../../src/core/session/transcript.js';

const meta: NewTranscriptMeta = { sessionId: 's1', cwd: '/repo', provider: 'anthropic', model: 'claude-sonnet-4-5' };

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

function tempFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-transcript-'));
  return path.join(dir, 'nested', 'transcript.jsonl');
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n');
}

describe('TranscriptWriter', () => {
  it('creates the folder, writes the meta line, then one line per message as it completes', () => {
    const file = tempFile();
    const writer = new TranscriptWriter(file, meta, { now: () => new Date('2026-12-02T11:22:33.000Z') });
    expect(lines(file)).toHaveLength(2);
    expect(JSON.parse(lines(file)[0])).toEqual({
      type: 'meta',
      version: 1,
      ...meta,
      createdAt: '2026-12-02T11:22:33.000Z',
    });
    const conversation = [user('hello'), assistant('hi'), user('bye')];
    conversation.forEach((message, i) => {
      writer.append(message);
      // Readable at once: a crash now would lose nothing already appended.
      const read = readTranscript(file);
      expect(read.history).toEqual(conversation.slice(0, i + 1));
      expect(read.warnings).toEqual([]);
      expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
    });
    expect(lines(file)).toHaveLength(5); // meta, 3 messages, and the empty text after the last newline
    expect(JSON.parse(lines(file)[1])).toEqual({ type: 'message', message: user('hello'), at: '2026-12-02T11:22:33.000Z' });
  });

  it('keeps the transcript private to the user', () => {
    const file = tempFile();
    new TranscriptWriter(file, meta).append(user('x'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o077).toBe(0);
  });

  it('appends to an existing transcript without a second meta line', () => {
    const file = tempFile();
    new TranscriptWriter(file, meta).append(user('first'));
    new TranscriptWriter(file, { ...meta, model: 'other' }).append(assistant('second'));
    const read = readTranscript(file);
    expect(read.meta.model).toBe('claude-sonnet-4-5');
    expect(read.history).toEqual([user('first'), assistant('second')]);
    expect(lines(file).filter((l) => l.includes('"type":"meta"'))).toHaveLength(1);
  });

  it('records events and replays them', () => {
    const file = tempFile();
    const writer = new TranscriptWriter(file, meta);
    writer.event('usage', { input: 10, output: 5 });
    writer.event('interrupted');
    const read = readTranscript(file);
    expect(read.events.map(({ name, data }) => ({ name, data }))).toEqual([
      { name: 'usage', data: { input: 10, output: 5 } },
      { name: 'interrupted', data: undefined },
    ]);
    expect(read.history).toEqual([]);
  });

  it('hands write failures to onError when given, else throws', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-transcript-'));
    const blocker = path.join(dir, 'file');
    writeFileSync(blocker, 'not a folder');
    const errors: Error[] = [];
    const writer = new TranscriptWriter(path.join(blocker, 'transcript.jsonl'), meta, { onError: (e) => errors.push(e) });
    writer.append(user('x'));
    // One for creating the folder, one for the append: the session goes on either way.
    expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(['EEXIST', 'ENOTDIR']);
    expect(() => new TranscriptWriter(path.join(blocker, 'transcript.jsonl'), meta)).toThrow(/EEXIST/);
  });
});

describe('readTranscript', () => {
  it('restores everything before a last line cut by a crash, and says so', () => {
    const file = tempFile();
    const writer = new TranscriptWriter(file, meta);
    writer.append(user('one'));
    writer.append(assistant('two'));
    const long = user(`three ${'x'.repeat(5000)}`);
    writer.append(long);
    // kill -9 in the middle of the last write: only the first half of its line reached the disk.
    const size = statSync(file).size;
    const lastLine = `${JSON.stringify({ type: 'message', message: long })}`.length;
    truncateSync(file, size - Math.floor(lastLine / 2));
    const read = readTranscript(file);
    expect(read.history).toEqual([user('one'), assistant('two')]);
    expect(read.skippedLines).toEqual([4]);
    expect(read.warnings).toEqual([
      'line 4 was cut short (the program probably crashed while writing it); everything before it was restored',
    ]);
  });

  it('resumes after a cut: the partial line stays alone and new records read back', () => {
    const file = tempFile();
    new TranscriptWriter(file, meta).append(user('one'));
    appendFileSync(file, '{"type":"message","message":{"role":"assis');
    const resumed = new TranscriptWriter(file, meta);
    resumed.append(assistant('after the crash'));
    const read = readTranscript(file);
    expect(read.history).toEqual([user('one'), assistant('after the crash')]);
    expect(read.skippedLines).toEqual([3]);
    expect(read.warnings).toEqual(['line 3 is not a readable transcript record; it was skipped']);
  });

  it('keeps a last record that lost only its newline', () => {
    const file = tempFile();
    new TranscriptWriter(file, meta).append(user('one'));
    truncateSync(file, statSync(file).size - 1);
    expect(readTranscript(file)).toMatchObject({ history: [user('one')], warnings: [] });
  });

  it('skips and reports bad lines in the middle', () => {
    const file = tempFile();
    const writer = new TranscriptWriter(file, meta);
    writer.append(user('one'));
    appendFileSync(file, 'garbage\n{"type":"message","message":{"role":"robot","content":[]}}\n');
    writer.append(assistant('two'));
    const read = readTranscript(file);
    // A message record's contents are repairHistory's to judge (repair-history.test.ts): it is read as written.
    expect(read.history).toEqual([user('one'), { role: 'robot', content: [] }, assistant('two')]);
    expect(read.skippedLines).toEqual([3]);
    expect(read.warnings).toEqual(['line 3 is not a readable transcript record; it was skipped']);
  });

  it('replays compactions: the summary and the kept messages, then what followed', () => {
    const file = tempFile();
    const writer = new TranscriptWriter(file, meta);
    const first = [user('a'), assistant('b'), user('c'), assistant('d'), user('e'), assistant('f')];
    first.forEach((m) => writer.append(m));
    const summary1 = user('[Summary of the earlier conversation]\none');
    writer.compaction({ summary: summary1, keptMessages: 2, removedMessages: 4 });
    writer.append(user('g'));
    expect(readTranscript(file).history).toEqual([summary1, user('e'), assistant('f'), user('g')]);
    const summary2 = user('[Summary of the earlier conversation]\ntwo');
    writer.compaction({ summary: summary2, keptMessages: 1, removedMessages: 3 });
    expect(readTranscript(file).history).toEqual([summary2, user('g')]);
    writer.compaction({ summary: summary1, keptMessages: 0, removedMessages: 2 });
    expect(readTranscript(file).history).toEqual([summary1]);
    // Nothing was deleted from disk: every message is still in the file.
    expect(lines(file).filter((l) => l.includes('"type":"message"'))).toHaveLength(7);
  });

  it('refuses a file that is not a transcript, in one line', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-transcript-'));
    const empty = path.join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    expect(() => readTranscript(empty)).toThrow(TranscriptError);
    expect(() => readTranscript(empty)).toThrow(/has no meta record \(it may be empty\)$/);
    const other = path.join(dir, 'other.jsonl');
    writeFileSync(other, `${JSON.stringify({ type: 'message', message: user('x'), at: 'now' })}\n`);
    expect(() => readTranscript(other)).toThrow(/does not start with a meta record$/);
    const newer = path.join(dir, 'newer.jsonl');
    writeFileSync(newer, `${JSON.stringify({ type: 'meta', version: 2, sessionId: 'x' })}\n`);
    expect(() => readTranscript(newer)).toThrow(/transcript version 2; this outrider reads version 1/);
  });
});

describe('secrets', () => {
  const saved = { anthropic: process.env.ANTHROPIC_API_KEY, openai: process.env.OPENAI_API_KEY };
  afterEach(() => {
    for (const [name, value] of [
      ['ANTHROPIC_API_KEY', saved.anthropic],
      ['OPENAI_API_KEY', saved.openai],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('never writes an API key, wherever it appears in a record', () => {
    const anthropicKey = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcdef';
    const openaiKey = 'plain-looking-openai-secret-42';
    process.env.ANTHROPIC_API_KEY = anthropicKey;
    process.env.OPENAI_API_KEY = openaiKey;
    const proxyKey = 'sk-proj-ZZZZyyyyXXXXwwwwVVVVuuuu1234';
    const file = tempFile();
    const writer = new TranscriptWriter(file, { ...meta, task: `use ${openaiKey}` });
    writer.append(user(`my key is ${anthropicKey} and ${proxyKey}`));
    writer.append({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'bash', input: { command: `echo $KEY # ${openaiKey}` } }],
    });
    writer.append({
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 't1', content: `ANTHROPIC_API_KEY=${anthropicKey}\nOPENAI_API_KEY=${openaiKey}` },
      ],
    });
    writer.compaction({ summary: user(`summary mentions ${openaiKey}`), keptMessages: 1, removedMessages: 2 });
    writer.event('debug', { headers: { 'x-api-key': anthropicKey, authorization: `Bearer ${openaiKey}` } });

    const dir = path.dirname(path.dirname(file));
    const written = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'))
      .join('\n');
    for (const secret of [anthropicKey, openaiKey, proxyKey, 'AbCdEfGhIjKlMnOp', 'ZZZZyyyyXXXX']) {
      expect(written).not.toContain(secret);
    }
    expect(written.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(9);
    // Redaction keeps every line valid JSON: nothing is lost on reading back.
    const read = readTranscript(file);
    expect(read.warnings).toEqual([]);
    expect(read.meta.task).toBe('use [redacted]');
  });

  it('redacts key shapes and the configured values, and leaves ordinary words alone', () => {
    const env = { ANTHROPIC_API_KEY: 'short', OPENAI_API_KEY: 'quote"and\\slash-secret' };
    const forms = keyVariableForms(env);
    expect(redactSecrets('key sk-ant-api03-aaaaaaaaaaaaaaaaaaaaaaaa done', forms)).toBe('key [redacted] done');
    expect(redactSecrets('"sk-abcdefghijklmnopqrstuvwx"', forms)).toBe('"[redacted]"');
    expect(redactSecrets('the task-manager-implementation-details file', forms)).toBe(
      'the task-manager-implementation-details file',
    );
    expect(redactSecrets('sk-short and short', forms)).toBe('sk-short and short');
    const line = JSON.stringify({ text: `value ${env.OPENAI_API_KEY}` });
    expect(redactSecrets(line, forms)).toBe('{"text":"value [redacted]"}');
    expect(redactSecrets(`raw ${env.OPENAI_API_KEY}`, forms)).toBe('raw [redacted]');
  });
});
