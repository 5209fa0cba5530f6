/**
 * agent_start's `after` through real sessions (openSession, every part wired as in production)
 * over a fake stream: the waiting job's child gets the reports in its task; a session that
 * closes while a job waits lists it as interrupted, waiting, and will not run it without the
 * report it waits for.
 */
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import { isChildRequest, testDirs, useTestSessions } from '../../support/test-session.js';
import { until } from '../../support/until.js';

const openWith = useTestSessions();

const wire = (request: ModelRequest) => JSON.stringify(request.messages);
const isJob = (n: number) => (request: ModelRequest) => isChildRequest(request) && wire(request).includes(`JOB ${n}`);
/** The text of every tool result the parent got, in order. */
const toolResults = (request: ModelRequest) =>
  request.messages.flatMap((m) =>
    m.content.flatMap((b) =>
      b.type === 'tool_result' ? [typeof b.content === 'string' ? b.content : JSON.stringify(b.content)] : [],
    ),
  );

describe('jobs that wait for jobs, in a session', () => {
  it("starts the waiting job's child with the report of the job it waited for in its task", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let parentStep = 0;
    const t = await openWith((request) => {
      if (isJob(1)(request)) return { text: 'auth signs JWTs in src/auth.ts', wait: held };
      if (isJob(2)(request)) return { text: 'compared' };
      parentStep += 1;
      if (parentStep === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'JOB 1: how does auth work?' } }] };
      if (parentStep === 2) {
        return { toolCalls: [{ name: 'agent_start', args: { task: 'JOB 2: review the auth findings', after: ['sub-1'] } }] };
      }
      return { text: 'waiting for them' };
    });
    await t.submit('look into auth');
    const results = toolResults(t.stream.requests.filter((r) => !isChildRequest(r)).at(-1)!);
    expect(results[1]).toBe(
      'Sub-agent sub-2 started (queued, waiting for sub-1). Call agent_poll with id sub-2 to retrieve its summary. Caps: 1.0M tokens, 10 turns, 5m00s.',
    );
    expect(t.stream.requests.some(isJob(2))).toBe(false);
    release();
    await until(() => t.stream.requests.find(isJob(2)), { what: "sub-2's first request" });
    const task = wire(t.stream.requests.find(isJob(2))!);
    expect(task).toContain('--- report of sub-1 (its task: JOB 1: how does auth work?) ---\\nauth signs JWTs in src/auth.ts');
    await t.session.agents.manager.idle();
    expect(t.session.jobs().map((job) => [job.id, job.state])).toEqual([
      ['sub-1', 'done'],
      ['sub-2', 'done'],
    ]);
  });

  it('agent_stop of the job another waits for says that one was stopped too; a bad after is an error result', async () => {
    let parentStep = 0;
    const t = await openWith((request) => {
      if (isChildRequest(request)) return { hang: true };
      parentStep += 1;
      if (parentStep === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'JOB 1: survey' } }] };
      if (parentStep === 2) {
        return {
          toolCalls: [
            { name: 'agent_start', args: { task: 'JOB 2: follow up', after: ['1'] } },
            { name: 'agent_start', args: { task: 'JOB 3: elsewhere', after: ['sub-7'] } },
          ],
        };
      }
      if (parentStep === 3) return { toolCalls: [{ name: 'agent_stop', args: { id: 'sub-1' } }] };
      return { text: 'stopped' };
    });
    await t.submit('go');
    const parent = t.stream.requests.filter((r) => !isChildRequest(r));
    expect(toolResults(parent[2]!).slice(-2)).toEqual([
      'Sub-agent sub-2 started (queued, waiting for sub-1). Call agent_poll with id sub-2 to retrieve its summary. Caps: 1.0M tokens, 10 turns, 5m00s.',
      expect.stringMatching(/^unknown sub-agent id "sub-7" in after: .* Ids you can wait for: sub-1(, sub-2)?\.$/),
    ]);
    expect(toolResults(parent[3]!).at(-1)).toBe('Stopped sub-1. sub-2, which waited for it, was stopped too.');
    expect(t.session.jobs().map((job) => [job.id, job.state])).toEqual([
      ['sub-1', 'aborted'],
      ['sub-2', 'aborted'],
    ]);
  });

  it('a session closed while a job waits lists it as interrupted and waiting, and will not run it without the report', async () => {
    const dirs = testDirs();
    let parentStep = 0;
    const first = await openWith(
      (request) => {
        if (isChildRequest(request)) return { hang: true };
        parentStep += 1;
        if (parentStep === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'JOB 1: survey' } }] };
        if (parentStep === 2)
          return { toolCalls: [{ name: 'agent_start', args: { task: 'JOB 2: follow up', after: ['sub-1'] } }] };
        return { text: 'started' };
      },
      { dirs },
    );
    await first.submit('go');
    await until(() => first.stream.requests.find(isJob(1)), { what: "sub-1's request" });
    expect(first.session.jobs().find((j) => j.id === 'sub-2')).toMatchObject({ state: 'queued', waitingFor: ['sub-1'] });
    await first.session.close();

    let step = 0;
    const second = await openWith(
      (request) => {
        if (isJob(1)(request)) return { text: 'survey done: three modules' };
        if (isJob(2)(request)) return { text: 'followed up' };
        step += 1;
        if (step === 1) return { toolCalls: [{ name: 'agent_send', args: { id: 'sub-2', message: 'go' } }] };
        if (step === 2) return { toolCalls: [{ name: 'agent_send', args: { id: 'sub-1', message: 'finish the survey' } }] };
        return { text: 'ok' };
      },
      { dirs, flags: { continue: true } },
    );
    const stored = second.session.storedJobs.find((s) => s.job.id === 'sub-2')!.job;
    expect(stored).toMatchObject({ state: 'error', interrupted: true, after: ['sub-1'], waitingFor: ['sub-1'] });
    await second.submit('carry on');
    const opening = wire(second.stream.requests.find((r) => !isChildRequest(r))!);
    expect(opening).toContain('- sub-2 (explore): 0 turns, 0 tool calls; still waiting for sub-1;');
    // The last two results of the history are this session's: agent_send to sub-2, then to sub-1.
    const results = toolResults(second.stream.requests.filter((r) => !isChildRequest(r)).at(-1)!);
    expect(results.at(-1)).toMatch(/^Sub-agent sub-1 resumed with your message/);
    expect(results.at(-2)).toBe(
      'sub-1 failed (interrupted (the session ended)), so a job waiting for it would run without its report: resume sub-1 with agent_send first, or leave it out of after',
    );
    await until(() => second.session.jobs().find((j) => j.id === 'sub-1' && j.state === 'done'), { what: 'sub-1 done again' });
    // Now it can run: its task carries sub-1's new report.
    second.session.agents.manager.send('sub-2', 'go now');
    await until(() => second.stream.requests.find(isJob(2)), { what: "sub-2's first request" });
    expect(wire(second.stream.requests.find(isJob(2))!)).toContain('survey done: three modules');
  });
});
