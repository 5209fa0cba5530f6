import { existsSync, mkdirSync, mkdtempSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outriderPaths } from '../../../src/core/config/paths.js';
import type { Message } from '../../../src/core/providers/types.js';
import {
  SessionLookupError,
  agentTranscriptPath,
  createSessionFolder,
  findSession,
  listSessions,
  newSessionId,
  newestEmptyTranscript,
  newestSessionFor,
  sessionPaths,
} from '../../../src/core/session/store.js';
import { TranscriptWriter } from '../../../src/core/session/transcript.js';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

function sessionsDir(): string {
  return outriderPaths({ OUTRIDER_HOME: mkdtempSync(path.join(os.tmpdir(), 'outrider-store-')) }).sessionsDir;
}

/** A stored session whose transcript was last written at `updated` (seconds since the epoch). */
function store(dir: string, id: string, options: { cwd: string; messages?: Message[]; updated: number }): void {
  const paths = createSessionFolder(dir, id);
  const writer = new TranscriptWriter(paths.transcript, {
    sessionId: id,
    cwd: options.cwd,
    provider: 'openai',
    model: 'gpt-5',
    createdAt: new Date(options.updated * 1000 - 60_000).toISOString(),
  });
  for (const message of options.messages ?? []) writer.append(message);
  utimesSync(paths.transcript, options.updated, options.updated);
}

describe('session ids and folders', () => {
  it('makes UUIDs (version 7) that sort by their time', () => {
    const id = newSessionId(new Date('2026-12-02T11:22:33Z'));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(Date.parse('2026-12-02T11:22:33Z'));
    const later = newSessionId(new Date('2026-12-02T11:22:34Z'));
    const nextYear = newSessionId(new Date('2027-01-01T00:00:00Z'));
    expect([nextYear, later, id].sort()).toEqual([id, later, nextYear]);
    expect(newSessionId()).not.toBe(newSessionId());
  });

  it('creates a private folder with the transcript and sub-agent paths inside', () => {
    const dir = sessionsDir();
    const paths = createSessionFolder(dir, '20261202-112233-abcdef');
    expect(paths).toEqual({
      dir: path.join(dir, '20261202-112233-abcdef'),
      transcript: path.join(dir, '20261202-112233-abcdef', 'transcript.jsonl'),
      agentsDir: path.join(dir, '20261202-112233-abcdef', 'agents'),
    });
    expect(existsSync(paths.dir)).toBe(true);
    expect(statSync(paths.dir).mode & 0o077).toBe(0);
    expect(agentTranscriptPath(paths, 'sub-3')).toBe(path.join(paths.agentsDir, 'sub-3.jsonl'));
    expect(sessionPaths(dir, 'x').transcript).toBe(path.join(dir, 'x', 'transcript.jsonl'));
  });
});

describe('listing sessions', () => {
  it('lists newest first with cwd, times and the first prompt', () => {
    const dir = sessionsDir();
    store(dir, '20261201-090000-aaaaaa', { cwd: '/repo/a', updated: 1_000, messages: [user('fix the tests')] });
    store(dir, '20261201-100000-bbbbbb', {
      cwd: '/repo/b',
      updated: 3_000,
      messages: [
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 't', content: 'not typed by the user' }] },
        user(`  explain\n\nthe   build ${'word '.repeat(40)}`),
        user('a later prompt'),
      ],
    });
    store(dir, '20261201-110000-cccccc', { cwd: '/repo/a', updated: 2_000 });
    const sessions = listSessions(dir);
    expect(sessions.map((s) => s.id)).toEqual(['20261201-100000-bbbbbb', '20261201-110000-cccccc', '20261201-090000-aaaaaa']);
    const [b, c, a] = sessions;
    expect(a).toEqual({
      id: '20261201-090000-aaaaaa',
      paths: sessionPaths(dir, '20261201-090000-aaaaaa'),
      cwd: '/repo/a',
      provider: 'openai',
      model: 'gpt-5',
      createdAt: new Date(940_000).toISOString(),
      updatedAt: new Date(1_000_000).toISOString(),
      firstPrompt: 'fix the tests',
    });
    expect(b.firstPrompt).toHaveLength(80);
    expect(b.firstPrompt).toMatch(/^explain the build word word .*…$/);
    expect(c.firstPrompt).toBe('');
  });

  it('filters by directory, symlinks followed', () => {
    const dir = sessionsDir();
    const real = mkdtempSync(path.join(os.tmpdir(), 'outrider-store-cwd-'));
    const link = `${real}-link`;
    symlinkSync(real, link);
    store(dir, '20261201-090000-aaaaaa', { cwd: real, updated: 1_000 });
    store(dir, '20261201-100000-bbbbbb', { cwd: '/elsewhere', updated: 2_000 });
    expect(listSessions(dir, { cwd: real }).map((s) => s.id)).toEqual(['20261201-090000-aaaaaa']);
    expect(listSessions(dir, { cwd: link }).map((s) => s.id)).toEqual(['20261201-090000-aaaaaa']);
    expect(listSessions(dir, { cwd: `${real}/` }).map((s) => s.id)).toEqual(['20261201-090000-aaaaaa']);
  });

  it('leaves out folders without a readable transcript, and is empty before the first session', () => {
    const dir = sessionsDir();
    expect(listSessions(dir)).toEqual([]);
    store(dir, '20261201-090000-aaaaaa', { cwd: '/repo', updated: 1_000 });
    mkdirSync(path.join(dir, 'empty-folder'));
    createSessionFolder(dir, 'garbage');
    writeFileSync(sessionPaths(dir, 'garbage').transcript, 'not json\n');
    writeFileSync(path.join(dir, 'stray-file.jsonl'), '');
    expect(listSessions(dir).map((s) => s.id)).toEqual(['20261201-090000-aaaaaa']);
  });

  it('finds the newest session of a directory for --continue', () => {
    const dir = sessionsDir();
    store(dir, '20261201-090000-aaaaaa', { cwd: '/repo', updated: 5_000 });
    store(dir, '20261201-100000-bbbbbb', { cwd: '/repo', updated: 4_000 });
    store(dir, '20261201-110000-cccccc', { cwd: '/other', updated: 9_000 });
    // The most recently written, not the most recently created.
    expect(newestSessionFor(dir, '/repo')?.id).toBe('20261201-090000-aaaaaa');
    expect(newestSessionFor(dir, '/nowhere')).toBeUndefined();
  });
});

describe('findSession', () => {
  function fixture(): string {
    const dir = sessionsDir();
    store(dir, '20261201-090000-aaaaaa', { cwd: '/repo', updated: 1_000 });
    store(dir, '20261201-090000-abbbbb', { cwd: '/repo', updated: 2_000 });
    store(dir, '20261202-120000-cccccc', { cwd: '/other', updated: 3_000 });
    return dir;
  }

  it('finds by whole id or by a prefix only one id has', () => {
    const dir = fixture();
    expect(findSession(dir, '20261202-120000-cccccc').cwd).toBe('/other');
    expect(findSession(dir, '20261202').id).toBe('20261202-120000-cccccc');
    expect(findSession(dir, '20261201-090000-ab').id).toBe('20261201-090000-abbbbb');
  });

  it('says when nothing matches, pointing at the sessions folder', () => {
    const dir = fixture();
    expect(() => findSession(dir, 'nope')).toThrow(SessionLookupError);
    expect(() => findSession(dir, 'nope')).toThrow(`no session "nope" in ${dir}; see ${dir} for the sessions stored there`);
    expect(() => findSession(dir, '')).toThrow(/^no session "" in /);
    expect(() => findSession(dir, '../')).toThrow(/^no session "\.\.\/" in /);
  });

  it('says when a prefix is ambiguous, listing the candidates', () => {
    const dir = fixture();
    expect(() => findSession(dir, '20261201')).toThrow(
      '"20261201" matches 2 sessions (20261201-090000-abbbbb, 20261201-090000-aaaaaa); give more of the id',
    );
  });

  it('says when the session it found cannot be read', () => {
    const dir = fixture();
    createSessionFolder(dir, 'broken');
    writeFileSync(sessionPaths(dir, 'broken').transcript, 'not json\n');
    expect(() => findSession(dir, 'broken')).toThrow(
      /^session broken has no readable transcript \(.*transcript\.jsonl\); start a new session instead$/,
    );
  });

  it('says when the session it found has an empty transcript, and where it is', () => {
    const dir = fixture();
    createSessionFolder(dir, 'blank');
    const file = sessionPaths(dir, 'blank').transcript;
    for (const text of ['', '\n\n']) {
      writeFileSync(file, text);
      expect(() => findSession(dir, 'blank')).toThrow(
        `session blank cannot be resumed: its transcript ${file} is empty (the session ended before it recorded anything); start a new session without --resume`,
      );
    }
  });
});

describe('newestEmptyTranscript', () => {
  it('names the newest transcript when it is empty, so --continue can say why nothing was found', () => {
    const dir = sessionsDir();
    expect(newestEmptyTranscript(dir)).toBeUndefined();
    store(dir, '20261201-090000-aaaaaa', { cwd: '/repo', updated: 5_000 });
    createSessionFolder(dir, '20261201-100000-bbbbbb');
    const empty = sessionPaths(dir, '20261201-100000-bbbbbb').transcript;
    writeFileSync(empty, '');
    utimesSync(empty, 4_000, 4_000);
    // An older empty transcript says nothing about the newest session.
    expect(newestEmptyTranscript(dir)).toBeUndefined();
    utimesSync(empty, 6_000, 6_000);
    expect(newestEmptyTranscript(dir)).toBe(empty);
  });
});
