import { mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Job } from '../../../src/core/jobs/job-types.js';
import { emptyUsage } from '../../../src/core/providers/types.js';
import { nextJobNumber, readStoredJobs, storedJobIds } from '../../../src/core/session/job-store.js';
import { writeShellRecord } from '../../../src/core/session/shell-records.js';
import { type SessionPaths, sessionPaths } from '../../../src/core/session/store.js';
import { TranscriptWriter } from '../../../src/core/session/transcript.js';

function folder(): SessionPaths {
  return sessionPaths(mkdtempSync(path.join(os.tmpdir(), 'outrider-jobs-')), 'session');
}

const shellJob = (id: string, extra: Partial<Job> = {}): Job => ({
  id,
  number: Number(id.slice(3)),
  kind: 'shell',
  state: 'running',
  definition: 'shell',
  mode: 'typed',
  task: 'npm run dev',
  createdAt: 1000,
  startedAt: 1000,
  turns: 0,
  toolCalls: 0,
  contextTokens: 0,
  usage: emptyUsage(),
  ...extra,
});

function transcript(paths: SessionPaths, id: string, answer: string, end = true): void {
  const writer = new TranscriptWriter(path.join(paths.agentsDir, `${id}.jsonl`), {
    sessionId: `s/${id}`,
    cwd: '/tmp',
    provider: 'anthropic',
    model: 'm',
    jobId: id,
    definition: 'explore',
    task: `task of ${id}`,
  });
  writer.append({ role: 'user', content: [{ type: 'text', text: `Task:\ntask of ${id}` }] });
  writer.append({ role: 'assistant', content: [{ type: 'text', text: answer }] });
  if (end) writer.event('job_end', { state: 'done', turns: 1, toolCalls: 0, usage: emptyUsage(), createdAt: 5 });
}

describe('job store', () => {
  it("a shell's record is kept when it starts and replaced when it ends, private, its last line scrubbed", () => {
    const paths = folder();
    writeShellRecord(paths, shellJob('sh-2', { owner: 'sub-1', depth: 2 }));
    expect(readStoredJobs(paths).map(({ job }) => [job.id, job.state, job.error])).toEqual([
      // Read back while its record says running: the session ended without stopping it.
      ['sh-2', 'error', 'interrupted (the session ended)'],
    ]);
    const scrub = (text: string) => text.replaceAll('sk-secret', '[redacted]');
    writeShellRecord(
      paths,
      shellJob('sh-2', { owner: 'sub-1', state: 'done', exitCode: 0, endedAt: 4000, lastLine: 'key sk-secret' }),
      scrub,
    );
    const [stored] = readStoredJobs(paths);
    expect(stored!.messages).toEqual([]);
    expect(stored!.job).toMatchObject({
      id: 'sh-2',
      number: 2,
      kind: 'shell',
      state: 'done',
      task: 'npm run dev',
      exitCode: 0,
      endedAt: 4000,
      lastLine: 'key [redacted]',
      owner: 'sub-1',
      depth: 2,
    });
    expect(readFileSync(path.join(paths.agentsDir, 'sh-2.json'), 'utf8')).not.toContain('sk-secret');
    expect(statSync(path.join(paths.agentsDir, 'sh-2.json')).mode & 0o777).toBe(0o600);
    // No temporary file is left beside it.
    expect(readdirSync(paths.agentsDir)).toEqual(['sh-2.json']);
  });

  it('reads nested jobs from their transcripts with their owner, in tree order with shells last', () => {
    const paths = folder();
    transcript(paths, 'sub-2.1', 'inner answer');
    transcript(paths, 'sub-10', 'ten');
    transcript(paths, 'sub-2', 'outer answer');
    transcript(paths, 'sub-2.1.1', 'deepest', false);
    writeShellRecord(paths, shellJob('sh-1', { state: 'aborted' }));
    const jobs = readStoredJobs(paths).map(({ job }) => [job.id, job.number, job.owner, job.depth, job.state, job.result]);
    expect(jobs).toEqual([
      ['sub-2', 2, undefined, undefined, 'done', 'outer answer'],
      ['sub-2.1', 1, 'sub-2', 2, 'done', 'inner answer'],
      ['sub-2.1.1', 1, 'sub-2.1', 3, 'error', 'deepest'],
      ['sub-10', 10, undefined, undefined, 'done', 'ten'],
      ['sh-1', 1, undefined, undefined, 'aborted', ''],
    ]);
  });

  it('leaves unreadable files out of the list, but their ids stay taken', () => {
    const paths = folder();
    mkdirSync(paths.agentsDir, { recursive: true });
    writeFileSync(path.join(paths.agentsDir, 'sh-4.json'), '{"id":"sh-4","sta');
    writeFileSync(path.join(paths.agentsDir, 'sh-5.json'), '[1, 2]');
    writeFileSync(path.join(paths.agentsDir, 'sub-3.2.jsonl'), 'not json\n');
    writeFileSync(path.join(paths.agentsDir, 'notes.txt'), 'x');
    writeFileSync(path.join(paths.agentsDir, '.sh-9.json.abc.tmp'), '{}');
    transcript(paths, 'sub-3', 'ok');
    expect(readStoredJobs(paths).map(({ job }) => job.id)).toEqual(['sub-3']);
    expect(storedJobIds(paths).sort()).toEqual(['sh-4', 'sh-5', 'sub-3', 'sub-3.2']);
    expect(nextJobNumber(paths)).toBe(4);
  });

  it('a hand-edited record keeps only fields of the right type', () => {
    const paths = folder();
    mkdirSync(paths.agentsDir, { recursive: true });
    writeFileSync(
      path.join(paths.agentsDir, 'sh-7.json'),
      JSON.stringify({ command: 'make', state: 'done', createdAt: 'yesterday', exitCode: '0', lastLine: { x: 1 }, owner: 42 }),
    );
    writeFileSync(path.join(paths.agentsDir, 'sh-8.json'), JSON.stringify({ command: 'make', state: 'paused' }));
    const jobs = readStoredJobs(paths).map(({ job }) => job);
    expect(jobs[0]).toMatchObject({ id: 'sh-7', state: 'done', createdAt: 0, result: '' });
    expect([jobs[0]!.exitCode, jobs[0]!.lastLine, jobs[0]!.owner]).toEqual([undefined, undefined, undefined]);
    expect(jobs[1]).toMatchObject({ id: 'sh-8', state: 'error', error: 'interrupted (the session ended)', interrupted: true });
  });
});
