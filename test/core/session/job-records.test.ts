/**
 * The durable job ledger: what JobRecords writes as jobs change, and what readStoredJobs makes
 * of it after a crash. Real files in a temporary session folder; the manager is the real one.
 */
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED } from '../../../src/core/jobs/interrupted.js';
import { type ChildOutcome, type ChildRunRequest, JobManager, isEnded } from '../../../src/core/jobs/job-manager.js';
import type { Job, JobEvent } from '../../../src/core/jobs/job-types.js';
import { emptyUsage } from '../../../src/core/providers/types.js';
import { JobRecords } from '../../../src/core/session/job-records.js';
import { readStoredJobs } from '../../../src/core/session/job-store.js';
import { LOST_RESULT } from '../../../src/core/session/repair-history.js';
import { type SessionPaths, agentTranscriptPath, sessionPaths } from '../../../src/core/session/store.js';
import { TranscriptWriter, readTranscript } from '../../../src/core/session/transcript.js';
import { FakeClock, settle } from '../../support/fake-clock.js';
import { fakeShell } from '../../support/fake-shell.js';

const session = { id: 'session', cwd: '/tmp', provider: 'anthropic', model: 'm' };
const text = (t: string) => ({ type: 'text' as const, text: t });
const never = new AbortController().signal;

/** A session folder with its parent transcript, a ledger, and a manager whose events pass the ledger first. */
function setup() {
  const paths = sessionPaths(mkdtempSync(path.join(os.tmpdir(), 'outrider-ledger-')), 'session');
  const parent = new TranscriptWriter(paths.transcript, { ...session, sessionId: session.id }, { env: {} });
  const warnings: string[] = [];
  /** For every published event: the job as the store held it at that moment. */
  const atPublish: { event: JobEvent; stored: Job | undefined }[] = [];
  const records = new JobRecords({
    paths,
    session,
    env: {},
    scrub: (t) => t.replaceAll('sk-secret', '[redacted]'),
    warn: (t) => warnings.push(t),
    events: {
      publish: (event: JobEvent) => {
        const id = event.type === 'job_state' ? event.job.id : undefined;
        atPublish.push({ event, stored: id ? read(paths).find((s) => s.job.id === id)?.job : undefined });
      },
    },
  });
  const running = new Map<string, { request: ChildRunRequest; finish: (o: ChildOutcome) => void }>();
  const clock = new FakeClock();
  const manager = new JobManager({
    now: clock.now,
    timers: clock,
    emit: records.publish,
    run: (request) =>
      new Promise((resolve) => {
        // As a real child run does: its messages go to the transcript the ledger opened for it.
        const transcript = records.transcriptFor(request.id, request.definition, request.task);
        transcript.append({ role: 'user', content: [text(`Task:\n${request.task}`)] });
        running.set(request.id, {
          request,
          finish: (outcome) => {
            running.delete(request.id);
            resolve(outcome);
          },
        });
      }),
  });
  const parentNotices = () => readTranscript(paths.transcript).notices;
  /** A parent step boundary as the session takes it: the transcript first, then the manager. */
  const boundary = () => {
    for (const message of manager.boundaryMessages()) {
      parent.append(message);
      manager.confirm(message);
    }
  };
  return { paths, parent, records, manager, running, atPublish, warnings, boundary, parentNotices, clock };
}

const read = (paths: SessionPaths, notices: Parameters<typeof readStoredJobs>[1] = []) => readStoredJobs(paths, notices);
const owedOf = (paths: SessionPaths, notices: Parameters<typeof readStoredJobs>[1] = []) =>
  Object.fromEntries(read(paths, notices).map((s) => [s.job.id, s.owed]));

describe('the job ledger', () => {
  it('holds every state change before it is published, with the fields a resumed run needs', async () => {
    const t = setup();
    t.manager.start('isolated work', { isolation: 'worktree', budget: { maxTokens: 500 } });
    await settle();
    t.running.get('sub-1')!.finish({ status: 'done', text: 'wrote it' });
    await settle();
    const states = t.atPublish.filter((p) => p.event.type === 'job_state');
    expect(states.map((p) => (p.event as { job: Job }).job.state)).toEqual(['queued', 'running', 'done']);
    for (const { event, stored } of states) {
      const job = (event as { job: Job }).job;
      // What a front end is told, the store already says: the same state, or cut off if the process died now.
      expect(stored?.state).toBe(isEnded(job.state) ? job.state : 'error');
      if (!isEnded(job.state)) expect(stored?.interrupted).toBe(true);
    }
    const [stored] = read(t.paths);
    expect(stored!.job).toMatchObject({
      id: 'sub-1',
      state: 'done',
      definition: 'explore',
      task: 'isolated work',
      isolation: 'worktree',
      budget: { maxTokens: 500 },
      result: 'wrote it',
      turns: 0,
    });
    expect(stored!.messages).toEqual([{ role: 'user', content: [text('Task:\nisolated work')] }]);
    expect(t.warnings).toEqual([]);
  });

  it('owes an end until a poll or a notice delivers it; a resumed run owes its own', async () => {
    const t = setup();
    t.manager.start('a');
    t.manager.start('b');
    await settle();
    t.running.get('sub-1')!.finish({ status: 'done', text: 'A' });
    t.running.get('sub-2')!.finish({ status: 'error', text: '', error: 'limit' });
    await settle();
    expect(owedOf(t.paths)).toEqual({ 'sub-1': true, 'sub-2': true });
    await t.manager.poll('sub-1', never);
    expect(owedOf(t.paths)).toEqual({ 'sub-1': false, 'sub-2': true });
    t.boundary();
    expect(owedOf(t.paths)).toEqual({ 'sub-1': false, 'sub-2': false });
    // A message runs it again: the earlier delivery does not cover the new end.
    t.manager.send('sub-1', 'once more');
    await settle();
    expect(read(t.paths)[0]!.job).toMatchObject({ state: 'error', interrupted: true });
    t.running.get('sub-1')!.finish({ status: 'done', text: 'A2' });
    await settle();
    expect(owedOf(t.paths)).toEqual({ 'sub-1': true, 'sub-2': false });
    // A stopped job is never announced, so never owed.
    t.manager.start('c');
    await settle();
    t.manager.stop('sub-3');
    await settle();
    expect(owedOf(t.paths)['sub-3']).toBe(false);
  });

  it('a notice in the parent transcript after the end delivered it, though the crash came before the mark; one from an earlier run did not', async () => {
    const t = setup();
    t.manager.start('a');
    await settle();
    t.running.get('sub-1')!.finish({ status: 'done', text: 'A' });
    await settle();
    // The notice joined the parent's transcript, and the process died before the manager heard.
    const [notice] = t.manager.boundaryMessages();
    t.parent.append(notice!);
    expect(owedOf(t.paths)).toEqual({ 'sub-1': true });
    expect(owedOf(t.paths, t.parentNotices())).toEqual({ 'sub-1': false });

    t.manager.confirm(notice!);
    t.manager.send('sub-1', 'again');
    await settle();
    t.running.get('sub-1')!.finish({ status: 'done', text: 'A2' });
    await settle();
    // The first run's notice is before the second end: the second is still owed.
    expect(owedOf(t.paths, t.parentNotices())).toEqual({ 'sub-1': true });
  });

  it('a job cut off by a crash reads as interrupted, with what it had done and a history a provider takes', () => {
    const t = setup();
    const writer = t.records.transcriptFor('sub-4', 'general', 'fix the build');
    const job: Job = {
      id: 'sub-4',
      number: 4,
      state: 'running',
      definition: 'general',
      mode: 'typed',
      task: 'fix the build',
      createdAt: 1,
      startedAt: 2,
      turns: 0,
      toolCalls: 0,
      contextTokens: 0,
      usage: emptyUsage(),
    };
    t.records.record({ type: 'job_state', job });
    const call = { type: 'tool_use' as const, id: 'toolu_1', name: 'bash', input: { command: 'make' } };
    writer.append({ role: 'user', content: [text('Task:\nfix the build')] });
    writer.append({
      role: 'assistant',
      content: [text('Looking at the Makefile.'), { ...call, id: 'toolu_0', name: 'read_file' }],
    });
    writer.append({ role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_0', content: 'all: build' }] });
    // After the step, the manager's counters: what the job spent survives the crash.
    const usage = { input: 120, output: 30, cacheRead: 0, cacheWrite: 0 };
    t.records.record({
      type: 'job_event',
      jobId: 'sub-4',
      event: { type: 'turn_end', turn: 1 },
      counters: { turns: 1, toolCalls: 1, usage, contextTokens: 150 },
    });
    writer.append({ role: 'assistant', content: [text('Running make now.'), call] });
    // kill -9 in the middle of the next line.
    appendFileSync(agentTranscriptPath(t.paths, 'sub-4'), '{"type":"message","message":{"role":"user","content":[{"ty');

    const [stored] = read(t.paths);
    expect(stored).toMatchObject({ owed: true, cut: true });
    expect(stored!.job).toMatchObject({
      state: 'error',
      interrupted: true,
      error: INTERRUPTED,
      turns: 2,
      toolCalls: 2,
      usage: { input: 120, output: 30, cacheRead: 0, cacheWrite: 0 },
      result: 'Running make now.',
      definition: 'general',
    });
    // The call the crash left unanswered is answered, so the history is valid to send again.
    expect(stored!.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'toolu_1', content: LOST_RESULT, isError: true }],
    });
  });

  it('a job queued when the session died is listed, with its task and no conversation', async () => {
    const t = setup();
    const manager = new JobManager({ maxConcurrent: 1, run: () => new Promise(() => {}), emit: (e) => t.records.record(e) });
    manager.start('takes the slot');
    manager.start('waits for a slot', { agent: 'general' });
    manager.send('sub-2', 'and say hello');
    await settle();
    expect(read(t.paths)[1]).toMatchObject({
      job: {
        id: 'sub-2',
        state: 'error',
        interrupted: true,
        definition: 'general',
        task: 'waits for a slot\n\nThe parent adds: and say hello',
      },
      messages: [],
      owed: true,
    });
  });

  it('jobs the session stopped as it closed (a quit, a closed terminal) read as interrupted and owed; one the user stopped stays stopped', async () => {
    const t = setup();
    t.manager.start('stopped by the user');
    t.manager.start('running at the quit');
    t.manager.adoptShell(fakeShell().handle, { command: 'npm run dev' });
    await settle();
    t.manager.stop('sub-1');
    const closing = t.manager.close();
    // Its runs never return: the close gives up on them after its grace.
    t.clock.advance(2000);
    await closing;
    // Live, the quit stopped them; the store keeps why.
    expect(t.manager.list().map((j) => [j.id, j.state, j.interrupted])).toEqual([
      ['sub-1', 'aborted', undefined],
      ['sub-2', 'aborted', true],
      ['sh-1', 'aborted', true],
    ]);
    expect(read(t.paths).map(({ job, owed, cut }) => [job.id, job.state, job.error, owed, cut])).toEqual([
      ['sub-1', 'aborted', undefined, false, false],
      ['sub-2', 'error', INTERRUPTED, true, true],
      ['sh-1', 'error', INTERRUPTED, true, true],
    ]);
  });

  it('owes nothing of a store written before the ledger (only job_end), so old jobs are not announced again', () => {
    const t = setup();
    const writer = new TranscriptWriter(agentTranscriptPath(t.paths, 'sub-1'), {
      sessionId: 's/sub-1',
      cwd: '/',
      provider: 'a',
      model: 'm',
      jobId: 'sub-1',
      task: 'old',
    });
    writer.append({ role: 'user', content: [text('Task:\nold')] });
    writer.append({ role: 'assistant', content: [text('old report')] });
    writer.event('job_end', { state: 'done', turns: 1, toolCalls: 0, usage: emptyUsage(), createdAt: 5 });
    expect(read(t.paths)).toMatchObject([{ job: { id: 'sub-1', state: 'done', result: 'old report', turns: 1 }, owed: false }]);
  });

  it("a shell's record owes its end until delivered; one still running when the session died is interrupted and owed", async () => {
    const t = setup();
    const first = fakeShell();
    const second = fakeShell();
    t.manager.adoptShell(first.handle, { command: 'make test' });
    t.manager.adoptShell(second.handle, { command: 'npm run dev' });
    second.print('listening with sk-secret\n');
    first.exit(0);
    await settle();
    expect(owedOf(t.paths)).toEqual({ 'sh-1': true, 'sh-2': true });
    t.boundary();
    expect(read(t.paths).map(({ job, owed }) => [job.id, job.state, job.error, owed])).toEqual([
      ['sh-1', 'done', undefined, false],
      ['sh-2', 'error', INTERRUPTED, true],
    ]);
    expect(readFileSync(path.join(t.paths.agentsDir, 'sh-2.json'), 'utf8')).not.toContain('sk-secret');
  });
});
