import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forkStart } from '../../../src/core/agents/child-run.js';
import type { Message } from '../../../src/core/providers/types.js';
import { readJobHistory } from '../../../src/core/session/job-history.js';
import { LOST_RESULT } from '../../../src/core/session/repair-history.js';
import { type SessionPaths, agentTranscriptPath, sessionPaths } from '../../../src/core/session/store.js';
import { TranscriptWriter } from '../../../src/core/session/transcript.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): SessionPaths {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-history-'));
  dirs.push(dir);
  const paths = sessionPaths(dir, 's1');
  mkdirSync(paths.agentsDir, { recursive: true });
  return paths;
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const calls: Message = {
  role: 'assistant',
  content: [
    { type: 'text', text: 'Reading both.' },
    { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.ts' } },
    { type: 'tool_use', id: 't2', name: 'read_file', input: { path: 'b.ts' } },
  ],
};

/** A job's transcript as the ledger writes it. */
function written(paths: SessionPaths, jobId: string, messages: Message[]): void {
  const writer = new TranscriptWriter(
    agentTranscriptPath(paths, jobId),
    { sessionId: `s1/${jobId}`, cwd: '/w', provider: 'anthropic', model: 'm' },
    { env: {} },
  );
  for (const message of messages) writer.append(message);
  writer.close();
}

describe("a job's conversation read from its stored transcript", () => {
  it("gives a running job's calls still in flight as pending, not as results lost", () => {
    const paths = folder();
    written(paths, 'sub-1', [user('Task:\nread'), calls]);
    const running = readJobHistory(paths, 'sub-1', { running: true });
    expect(running.messages).toEqual([user('Task:\nread'), calls]);
    expect(running.pending.map((call) => call.id)).toEqual(['t1', 't2']);
    // Ended (a crash, a stop): its calls are answered as lost, as a resumed session does.
    const ended = readJobHistory(paths, 'sub-1', { running: false });
    expect(ended.pending).toEqual([]);
    expect(ended.messages).toHaveLength(3);
    expect(JSON.stringify(ended.messages[2])).toContain(LOST_RESULT.slice(0, 30));
  });

  it('a job with no file yet has no messages; an unreadable file says why in one line', () => {
    const paths = folder();
    expect(readJobHistory(paths, 'sub-7', { running: true })).toEqual({ messages: [], pending: [] });
    writeFileSync(agentTranscriptPath(paths, 'sub-8'), 'not a transcript\n');
    const broken = readJobHistory(paths, 'sub-8', { running: false });
    expect(broken.messages).toEqual([]);
    expect(broken.error).toMatch(/^could not read sub-8's transcript: .*not .*outrider transcript/);
    expect(broken.error).not.toContain('\n');
  });

  it('a line cut by a crash and hand-edited junk are left out; the rest reads', () => {
    const paths = folder();
    written(paths, 'sub-1', [user('Task:\nread'), { role: 'assistant', content: [{ type: 'text', text: 'half' }] }]);
    const file = agentTranscriptPath(paths, 'sub-1');
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"type":"message","message":{"role":"wizard"}}\n{"type":"mess`);
    const read = readJobHistory(paths, 'sub-1', { running: true });
    expect(read.error).toBeUndefined();
    expect(read.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(read.pending).toEqual([]);
  });

  it("finds where a fork's own conversation starts after its parent's", () => {
    const fork = user(`You are now a forked sub-agent of this conversation.\nrules\n\nTask:\nlook`);
    expect(forkStart([user('parent prompt'), { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, fork])).toBe(2);
    expect(forkStart([user('Task:\nlook')])).toBe(0);
  });
});
