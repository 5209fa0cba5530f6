import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import type { SessionSetup } from '../../../src/core/session/opened-session.js';
import { LOST_RESULT } from '../../../src/core/session/repair-history.js';
import type { FakeReply } from '../../support/fake-stream.js';
import { type TestDirs, isChildRequest, testDirs, useTestSessions } from '../../support/test-session.js';
import { until } from '../../support/until.js';

const openWith = useTestSessions();
const dirs = testDirs;
const open = (where: TestDirs, respond: Parameters<typeof openWith>[0], flags: SessionSetup['flags'] = {}) =>
  openWith(respond, { flags, dirs: where });
const isChild = isChildRequest;

describe('openSession', () => {
  it('resumes a session that crashed mid-tool with every call answered', async () => {
    const where = dirs();
    const first = await open(where, () => ({ text: 'hello' }));
    await first.submit('start');
    // What a crash during a tool leaves behind: the call, and no result.
    const dangling = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'make' } }],
    };
    appendFileSync(
      first.session.paths.transcript,
      `${JSON.stringify({ type: 'message', message: dangling, at: new Date().toISOString() })}\n`,
    );

    const second = await open(where, () => ({ text: 'resumed' }), { continue: true });
    expect(second.session.session.id).toBe(first.session.session.id);
    expect(second.session.warnings).toContain('the session ended while 1 tool call(s) ran; they are marked interrupted');
    await second.submit('go on');
    const messages = second.stream.requests[0]!.messages;
    // Roles alternate: the answer and the call after it (appended above) go as one message, the
    // interrupted call's result and the new prompt as the next.
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]!.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 'toolu_1', content: LOST_RESULT, isError: true },
        { type: 'text', text: 'go on' },
      ],
    });
  });

  it("numbers a resumed session's new jobs after its earlier ones", async () => {
    const where = dirs();
    const script = (request: ModelRequest): FakeReply => {
      if (isChild(request)) return { text: 'child done' };
      const last = JSON.stringify(request.messages.at(-1));
      if (last.includes('"text":"go"')) return { toolCalls: [{ name: 'agent_start', args: { task: 'look' } }] };
      if (last.includes('agent_start') || last.includes('started'))
        return { toolCalls: [{ name: 'agent_poll', args: { id: request.messages.length > 5 ? 'sub-2' : 'sub-1' } }] };
      return { text: 'ok' };
    };
    const first = await open(where, script);
    await first.submit('go');
    expect(first.session.agents.manager.list().map((j) => j.id)).toEqual(['sub-1']);
    await first.session.close();
    const second = await open(where, script, { continue: true });
    // The earlier run's job is read back from its transcript, as it ended.
    expect(
      second.session.storedJobs.map(({ job }) => ({ id: job.id, state: job.state, task: job.task, result: job.result })),
    ).toEqual([{ id: 'sub-1', state: 'done', task: 'look', result: 'child done' }]);
    expect(second.session.storedJobs[0]!.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    await second.submit('go');
    // The earlier job is the manager's again (it can be messaged); the new one comes after it.
    expect(second.session.agents.manager.list().map((j) => `${j.id}:${j.state}`)).toEqual(['sub-1:done', 'sub-2:done']);
  });

  it("a resumed session lists the earlier run's shells and nested jobs, numbers new ones after them, and resumes a nested job", async () => {
    const where = dirs();
    const flags: SessionSetup['flags'] = { permissionMode: 'yolo', agents: { maxAgentDepth: 2 } };
    const resultsOf = (request: ModelRequest) => JSON.stringify(request.messages.at(-1));
    const script = (request: ModelRequest): FakeReply => {
      const first = JSON.stringify(request.messages[0]);
      if (isChild(request)) {
        if (first.includes('inner task')) return { text: resultsOf(request).includes('again') ? 'inner again' : 'inner first' };
        if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'inner task' } }] };
        if (request.messages.length === 3) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1.1' } }] };
        return { text: 'outer done' };
      }
      const last = resultsOf(request);
      if (last.includes('"text":"first run"'))
        return {
          toolCalls: [
            { name: 'bash', args: { command: 'echo one', run_in_background: true } },
            { name: 'bash', args: { command: 'echo two', run_in_background: true } },
            { name: 'agent_start', args: { task: 'outer task' } },
          ],
        };
      if (last.includes('"text":"second run"'))
        return {
          toolCalls: [
            { name: 'bash', args: { command: 'echo three', run_in_background: true } },
            { name: 'agent_send', args: { id: 'sub-1.1', message: 'again' } },
            { name: 'agent_send', args: { id: 'sh-1', message: 'hello' } },
            { name: 'agent_start', args: { task: 'outer task' } },
          ],
        };
      return { text: 'ok' };
    };
    const first = await open(where, script, flags);
    await first.submit('first run');
    const ended = (session: typeof first.session, count: number) =>
      until(() => session.jobs().length === count && session.jobs().every((j) => j.state === 'done' || j.state === 'error'), {
        what: 'every job to end',
        observe: () => session.jobs().map((j) => `${j.id}:${j.state}`),
      });
    await ended(first.session, 4);
    await first.session.close();

    const second = await open(where, script, { ...flags, continue: true });
    expect(second.session.storedJobs.map(({ job }) => `${job.id}:${job.state}:${job.owner ?? ''}`)).toEqual([
      'sub-1:done:',
      'sub-1.1:done:sub-1',
      'sh-1:done:',
      'sh-2:done:',
    ]);
    expect(second.session.storedJobs.find(({ job }) => job.id === 'sh-2')!.job).toMatchObject({
      task: 'echo two',
      lastLine: 'two',
    });
    await second.submit('second run');
    // The batch's results (a notice may follow them in the same request).
    const reply = JSON.stringify(
      second.stream.requests
        .filter((r) => !isChild(r))[1]!
        .messages.findLast((m) => JSON.stringify(m).includes('Started background shell')),
    );
    expect(reply).toContain('Started background shell sh-3');
    expect(reply).toContain('Sub-agent sub-1.1 resumed with your message');
    expect(reply).toContain('sh-1 is from an earlier run of this session and exited with code 0; a shell cannot be resumed');
    expect(reply).toContain('Sub-agent sub-2 started');
    await ended(second.session, 7);
    expect(second.session.jobs().map((j) => j.id)).toEqual(['sub-1', 'sub-1.1', 'sub-2', 'sub-2.1', 'sh-1', 'sh-2', 'sh-3']);
    // Resumed under its own id: its whole history, then the message.
    const resumed = second.stream.requests.filter((r) => isChild(r) && JSON.stringify(r.messages).includes('again'))[0]!;
    expect(resumed.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(resumed.messages[0])).toContain('inner task');
    expect(second.session.agents.manager.get('sub-1.1').result).toBe('inner again');
    // Its owner is not running: the parent hears of it, by the next prompt at the latest.
    await second.submit('third run');
    const history = JSON.stringify(second.stream.requests.at(-1)!.messages);
    expect(history).toMatch(/(Sub-agents?|Jobs) [^"]*sub-1\.1[^"]* completed/);
  });

  it('reads back a job that the session ended while it ran as interrupted, saying so', async () => {
    const where = dirs();
    const first = await open(where, (request) => {
      if (isChild(request)) return { hang: true };
      if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'never ends' } }] };
      return { text: 'started' };
    });
    await first.submit('go');
    // A crash: the process is gone before the job ends, so its transcript has no end record.
    const agentsDir = first.session.paths.agentsDir;
    const { readFileSync } = await import('node:fs');
    const before = readFileSync(path.join(agentsDir, 'sub-1.jsonl'), 'utf8');
    await first.session.close();
    writeFileSync(path.join(agentsDir, 'sub-1.jsonl'), before);
    const second = await open(where, () => ({ text: 'hi' }), { continue: true });
    expect(second.session.storedJobs.map(({ job }) => [job.id, job.state, job.interrupted, job.error])).toEqual([
      ['sub-1', 'error', true, 'interrupted (the session ended)'],
    ]);
  });

  it('compacts between steps when the context nears the window, keeping the system prompt', async () => {
    const where = dirs();
    writeFileSync(path.join(where.cwd, 'big.txt'), `${'x'.repeat(80)}\n`.repeat(60));
    let summaries = 0;
    let steps = 0;
    const { stream, events, submit, session } = await open(
      where,
      (request) => {
        if (request.tools.length === 0) {
          summaries += 1;
          return { text: 'SUMMARY of the reading so far' };
        }
        steps += 1;
        return steps <= 4 ? { toolCalls: [{ name: 'read_file', args: { path: 'big.txt' } }] } : { text: 'done reading' };
      },
      { models: { 'claude-sonnet-5': { contextWindow: 6000, maxOutput: 1000 } } },
    );
    const result = await submit('read big.txt a few times');
    expect(result.cause.kind).toBe('completed');
    expect(summaries).toBeGreaterThanOrEqual(1);
    expect(events.some((e) => e.type === 'compact')).toBe(true);
    const summaryIndex = stream.requests.findIndex((r) => r.tools.length === 0);
    const after = stream.requests[summaryIndex + 1]!;
    expect(JSON.stringify(after.messages[0])).toContain('[Summary of the earlier conversation]');
    expect(stream.requests.every((r) => r.system === session.session.system)).toBe(true);
  });

  it('stops running jobs when the parent alone passes the session budget', async () => {
    const where = dirs();
    let release: () => void = () => {};
    const parent: FakeReply[] = [
      { toolCalls: [{ name: 'agent_start', args: { task: 'slow' } }], usage: { input: 10, output: 0 } },
      { toolCalls: [{ name: 'list_dir', args: {} }], usage: { input: 60_000, output: 0 } },
      { text: 'ok', usage: { input: 10, output: 0 } },
    ];
    // The child's first call fits the budget (its worst case is about 11k tokens) and is under way.
    const { session, submit, events } = await open(
      where,
      (request) => (isChild(request) ? { text: 'late', wait: new Promise<void>((r) => (release = r)) } : parent.shift()!),
      { agents: { maxSessionTokens: 50_000 } },
    );
    await submit('go');
    expect(session.agents.manager.get('sub-1').state).toBe('aborted');
    expect(events.some((e) => e.type === 'budget_reached')).toBe(true);
    release();
  });
});
