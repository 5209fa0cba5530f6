import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import type { SessionSetup } from '../../../src/core/session/opened-session.js';
import type { FakeReply } from '../../support/fake-stream.js';
import { isChildRequest, testDirs, useTestSessions } from '../../support/test-session.js';
import { expectExited } from '../../support/process.js';
import { until } from '../../support/until.js';

const openWith = useTestSessions();
const open = (respond: Parameters<typeof openWith>[0], flags: SessionSetup['flags'] = {}) => openWith(respond, { flags });
const isChild = isChildRequest;
const lastText = (request: ModelRequest) => JSON.stringify(request.messages.at(-1));

describe('sub-agents in a session', () => {
  it('rolls job usage into the session totals, leaving the parent context figure alone', async () => {
    const { session, submit } = await open((request) => {
      if (isChild(request)) return { text: 'child report', usage: { input: 5000, output: 500 } };
      if (request.messages.length === 1)
        return { toolCalls: [{ name: 'agent_start', args: { task: 'look around' } }], usage: { input: 100, output: 10 } };
      if (lastText(request).includes('agent_poll') || request.messages.length === 3)
        return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }], usage: { input: 200, output: 10 } };
      return { text: 'summary', usage: { input: 300, output: 20 } };
    });
    await submit('investigate');
    expect(session.session.usage()).toMatchObject({ input: 600, output: 40 });
    expect(session.totals()).toMatchObject({ input: 5600, output: 540 });
    expect(session.session.contextTokens()).toBe(320);
    expect(session.session.ledger.breakdown().map((r) => r.name)).toEqual(['parent', 'sub-1']);
  });

  it('tells a typed child where it works: the environment facts and the project instructions the parent has', async () => {
    const dirs = testDirs();
    writeFileSync(path.join(dirs.cwd, 'AGENTS.md'), 'Always run npm test before saying done.\n');
    const { stream, submit } = await openWith(
      (request) => {
        if (isChild(request)) return { text: 'child report' };
        if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'look around' } }] };
        return { text: 'done' };
      },
      { dirs },
    );
    await submit('go');
    const child = stream.requests.find(isChild)!;
    expect(child.system).toContain(`Working directory: ${dirs.cwd}`);
    expect(child.system).toContain('Always run npm test before saying done.');
    // The parent's own prompt has them too, once.
    expect(stream.requests[0]!.system.split('Always run npm test').length).toBe(2);
  });

  it('writes each child transcript to agents/sub-N.jsonl with its lineage', async () => {
    const { session, submit } = await open((request) => {
      if (isChild(request)) return { text: 'child report' };
      if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'look around' } }] };
      if (request.messages.length === 3) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      return { text: 'done' };
    });
    await submit('go');
    const file = path.join(session.paths.agentsDir, 'sub-1.jsonl');
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      type: 'meta',
      parentSessionId: session.session.id,
      jobId: 'sub-1',
      definition: 'explore',
      task: 'look around',
    });
    // Its state at every change (the job ledger), its messages as they happen, and the mark that its end reached the model.
    expect(
      lines.slice(1).map((l) => (l.type === 'message' ? l.message.role : `${l.name}${l.data.state ? ` ${l.data.state}` : ''}`)),
    ).toEqual(['job_state queued', 'job_state running', 'user', 'assistant', 'job_progress', 'job_state done', 'job_delivered']);
    expect(lines[5]).toMatchObject({ type: 'event', name: 'job_progress', data: { turns: 1, toolCalls: 0 } });
    expect(lines[6]).toMatchObject({ type: 'event', name: 'job_state', data: { state: 'done', turns: 1 } });
    expect(lines[7]).toMatchObject({ type: 'event', name: 'job_delivered', data: { via: 'poll' } });
  });

  it('stops running jobs and refuses new ones once the session budget is spent, saying so', async () => {
    // A response that uses far more than its request's estimate (the provider's count is what
    // counts): the call was admitted, and the budget, judged again as the usage arrives, stops all.
    let childCalls = 0;
    const parentReplies: FakeReply[] = [
      { toolCalls: [{ name: 'agent_start', args: { task: 'long job' } }] },
      { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] },
      { toolCalls: [{ name: 'agent_start', args: { task: 'another' } }] },
      { text: 'ok' },
    ];
    const { session, submit, events } = await open(
      (request) => {
        if (isChild(request)) {
          childCalls += 1;
          return { toolCalls: [{ name: 'list_dir', args: {} }], usage: { input: 60_000, output: 0 } };
        }
        return { ...parentReplies.shift()!, usage: { input: 10, output: 0 } };
      },
      { agents: { maxSessionTokens: 50_000 } },
    );
    await submit('go');
    expect(session.agents.manager.get('sub-1').state).toBe('aborted');
    expect(childCalls).toBe(1);
    const reached = events.find((e) => e.type === 'budget_reached');
    expect(reached).toMatchObject({ stopped: ['sub-1'] });
    const refusal = session.session
      .messages()
      .flatMap((m) => m.content)
      .find((b) => b.type === 'tool_result' && b.content.includes('session budget'));
    expect(refusal).toMatchObject({ isError: true });
    expect(JSON.stringify(session.session.messages())).toContain('Token budget reached');
  });

  it('denies a sub-agent write in headless mode without --yolo, with a clear error result', async () => {
    const { stream, submit, cwd } = await open((request) => {
      if (isChild(request)) {
        return request.messages.length === 1
          ? { toolCalls: [{ name: 'write_file', args: { path: 'x.txt', content: 'x' } }] }
          : { text: 'denied' };
      }
      if (request.messages.length === 1)
        return { toolCalls: [{ name: 'agent_start', args: { task: 'write x', agent: 'general' } }] };
      if (request.messages.length === 3) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      return { text: 'done' };
    });
    await submit('go');
    const childSecond = stream.requests.find((r) => isChild(r) && r.messages.length === 3)!;
    const result = childSecond.messages[2]!.content[0] as { content: string; isError: boolean };
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/write_file needs approval.*headless.*--permission-mode accept-edits/);
    expect(existsSync(path.join(cwd, 'x.txt'))).toBe(false);
  });

  it('stopping a job kills its bash process group', async () => {
    let release: () => void = () => {};
    const { session, submit, cwd } = await open(
      (request) => {
        if (isChild(request)) return { toolCalls: [{ name: 'bash', args: { command: 'sleep 300 & echo $! > pid.txt; wait' } }] };
        if (request.messages.length === 1)
          return { toolCalls: [{ name: 'agent_start', args: { task: 'run it', agent: 'general' } }] };
        return { text: 'started', wait: new Promise<void>((r) => (release = r)) };
      },
      { permissionMode: 'yolo' },
    );
    const turn = submit('go');
    const pidFile = path.join(cwd, 'pid.txt');
    const pid = await until(() => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8')), {
      what: 'the child bash to write pid.txt',
    });
    session.agents.manager.stop('sub-1');
    await expectExited(pid);
    release();
    await turn;
    expect(session.agents.manager.get('sub-1').state).toBe('aborted');
  });

  it('a compaction while a job runs loses none; its completion is announced exactly once afterwards', async () => {
    let finishChild: () => void = () => {};
    const childGate = new Promise<void>((r) => (finishChild = r));
    let summaryRequest: ModelRequest | undefined;
    const { session, submit, stream } = await open((request) => {
      if (isChild(request)) return { text: 'child report', wait: childGate };
      if (request.tools.length === 0) {
        summaryRequest = request;
        return { text: 'SUMMARY: user asked to investigate; sub-1 is running' };
      }
      const last = lastText(request);
      if (last.includes('completed. Call agent_poll')) return { text: 'noted the completion' };
      if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'slow job' } }] };
      return { text: 'ok' };
    });
    await submit('first');
    await submit('second');
    await submit('third');
    const compacted = await session.compact(new AbortController().signal);
    expect(compacted).toMatchObject({ type: 'compact' });
    expect(JSON.stringify(summaryRequest!.messages)).toContain('sub-1 (explore, running): slow job');
    expect(summaryRequest!.system).toBe(session.session.system);
    const summary = JSON.stringify(session.session.messages()[0]);
    expect(summary).toContain('[Summary of the earlier conversation]');
    expect(summary).toContain('sub-1 (explore, running)');

    finishChild();
    await until(() => session.agents.manager.get('sub-1').state === 'done', {
      what: 'sub-1 to be done',
      observe: () => session.agents.manager.get('sub-1').state,
    });
    await submit('fourth');
    await submit('fifth');
    const notices = stream.requests
      .filter((r) => !isChild(r) && r.tools.length > 0)
      .map((r) => r.messages.filter((m) => JSON.stringify(m).includes('Sub-agent sub-1 completed')).length);
    expect(notices.at(-1)).toBe(1);
    expect(session.agents.manager.undelivered()).toEqual([]);
  });

  it('reads agent definitions from .claude/agents (Claude Code tool names mapped)', async () => {
    const dirs = testDirs();
    mkdirSync(path.join(dirs.cwd, '.claude/agents'), { recursive: true });
    writeFileSync(
      path.join(dirs.cwd, '.claude/agents/reviewer.md'),
      '---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\n---\nYou review code.\n',
    );
    const { session } = await openWith(() => ({ text: 'unused' }), { dirs });
    const start = session.session.tools.schemas().find((t) => t.name === 'agent_start')!;
    expect(start.description).toContain('reviewer: Reviews diffs');
    expect(session.warnings).toEqual([]);
  });
});
