import { appendFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/providers/types.js';
import { type NewTranscriptMeta, TranscriptWriter, readTranscript } from '../../../src/core/session/transcript.js';

const meta: NewTranscriptMeta = { sessionId: 's1', cwd: '/repo', provider: 'anthropic', model: 'claude-sonnet-4-5' };
const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

function tempFile(): string {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'outrider-writer-')), 'transcript.jsonl');
}

describe('TranscriptWriter keeps its file open', () => {
  it('only ever appends: the same file, every earlier byte unchanged', () => {
    const file = tempFile();
    const writer = new TranscriptWriter(file, meta);
    writer.append(user('one'));
    const inode = statSync(file).ino;
    for (const text of ['two', 'three', 'four']) {
      const before = readFileSync(file);
      writer.append(user(text));
      const after = readFileSync(file);
      expect(statSync(file).ino).toBe(inode);
      expect(after.subarray(0, before.length).equals(before)).toBe(true);
      expect(after.length).toBeGreaterThan(before.length);
    }
    expect(readTranscript(file).history).toEqual(['one', 'two', 'three', 'four'].map(user));
  });

  it('writes at the end even when someone else appended in between', () => {
    const file = tempFile();
    const first = new TranscriptWriter(file, meta);
    first.append(user('one'));
    const second = new TranscriptWriter(file, meta);
    second.append(user('two'));
    appendFileSync(file, `${JSON.stringify({ type: 'event', name: 'outside', at: 'now' })}\n`);
    first.append(user('three'));
    const read = readTranscript(file);
    expect(read.history).toEqual(['one', 'two', 'three'].map(user));
    expect(read.events.map((e) => e.name)).toEqual(['outside']);
  });

  it('reopens the file for a record written after close()', () => {
    const file = tempFile();
    const writer = new TranscriptWriter(file, meta);
    writer.append(user('before'));
    writer.close();
    writer.close();
    writer.append(user('after'));
    expect(readTranscript(file).history).toEqual([user('before'), user('after')]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
