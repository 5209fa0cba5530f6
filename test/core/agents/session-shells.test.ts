import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRequest, ToolResultBlock } from '../../../src/core/providers/types.js';
import type { SessionSetup } from '../../../src/core/session/opened-session.js';
import { isChildRequest, useTestSessions } from '../../support/test-session.js';
import { expectExited } from '../../support/process.js';
import { until } from '../../support/until.js';

const openWith = useTestSessions();
const open = (respond: Parameters<typeof openWith>[0], flags: SessionSetup['flags'] = {}) => openWith(respond, { flags });

/** The tool results of the request's last message. */
const results = (request: ModelRequest): ToolResultBlock[] =>
  (request.messages.at(-1)?.content ?? []).filter((b): b is ToolResultBlock => b.type === 'tool_result');
const resultText = (request: ModelRequest) =>
  results(request)
    .map((r) => String(r.content))
    .join('\n');

describe('background shells in a session', () => {
  it('run_in_background passes the same permission gate: headless, a command that may write is denied and starts nothing', async () => {
    const { session, submit, cwd } = await open((request, index) => {
      if (index === 0) return { toolCalls: [{ name: 'bash', args: { command: 'touch made-it', run_in_background: true } }] };
      return { text: 'done' };
    });
    await submit('go');
    expect(session.jobs()).toEqual([]);
    expect(existsSync(path.join(cwd, 'made-it'))).toBe(false);
  });

  it('a read-only command runs in the background without asking', async () => {
    const { session, submit, stream, cwd } = await open((request, index) => {
      if (index === 0) return { toolCalls: [{ name: 'bash', args: { command: 'cat notes.txt', run_in_background: true } }] };
      return { text: 'started' };
    });
    writeFileSync(path.join(cwd, 'notes.txt'), 'a note\n');
    await submit('go');
    expect(resultText(stream.requests[1]!)).toMatch(/^Started background shell sh-1/);
    await until(() => session.jobs()[0]?.state === 'done', { what: 'sh-1 to exit', observe: () => session.jobs() });
    expect(session.jobs()[0]!.lastLine).toBe('a note');
  });

  it('its end reaches the model as a notice before the next prompt; a yolo parent polls it and stops another', async () => {
    let step = 0;
    const { session, submit, stream, cwd } = await open(
      () => {
        step += 1;
        if (step === 1)
          return {
            toolCalls: [
              { name: 'bash', args: { command: 'echo built; exit 0', run_in_background: true } },
              { name: 'bash', args: { command: 'echo $$ > server.pid; sleep 300', run_in_background: true } },
            ],
          };
        if (step === 2) return { text: 'both started' };
        if (step === 3)
          return {
            toolCalls: [
              { name: 'agent_poll', args: { id: 'sh-1' } },
              { name: 'agent_stop', args: { id: 'sh-2' } },
            ],
          };
        return { text: 'done' };
      },
      { permissionMode: 'yolo' },
    );
    await submit('start them');
    await until(() => session.jobs().find((j) => j.id === 'sh-1')?.state === 'done', { what: 'sh-1 to exit' });
    const pid = await until(() => Number(readFileSync(path.join(cwd, 'server.pid'), 'utf8')) || undefined, { what: 'pid' });
    await submit('what happened?');
    const third = stream.requests[2]!;
    // The notice goes before the user's next prompt, in the one user message the request sends.
    const last = JSON.stringify(third.messages.at(-1));
    const notice = last.indexOf('Background shell sh-1 exited. Call agent_poll with id sh-1 for its output and exit code.');
    expect(notice).toBeGreaterThanOrEqual(0);
    expect(last.indexOf('what happened?')).toBeGreaterThan(notice);
    expect(resultText(stream.requests[3]!)).toContain('built\n\n[sh-1 exited with code 0]');
    expect(resultText(stream.requests[3]!)).toContain('Stopped sh-2.');
    await expectExited(pid);
  });

  it('moveToBackground turns the running foreground call into a shell job; the turn goes on', async () => {
    let step = 0;
    const { session, submit, stream, cwd } = await open(
      () => {
        step += 1;
        if (step === 1)
          return { toolCalls: [{ name: 'bash', args: { command: 'echo waiting; until [ -e go ]; do sleep 0.02; done' } }] };
        return { text: 'moved on' };
      },
      { permissionMode: 'yolo' },
    );
    const turn = submit('run it');
    await until(() => session.moveToBackground().length === 1 || undefined, { what: 'a foreground call to move' });
    await turn;
    expect(resultText(stream.requests[1]!)).toMatch(/moved to background as sh-1/);
    expect(session.jobs()[0]).toMatchObject({ id: 'sh-1', state: 'running' });
    writeFileSync(path.join(cwd, 'go'), '');
    await until(() => session.jobs()[0]?.state === 'done', { what: 'sh-1 to finish' });
  });
});

describe('nesting in a session (agents.maxAgentDepth)', () => {
  /** The parent starts sub-1; sub-1 starts sub-1.1 when it has agent_start, polls it, and reports what it heard. */
  const nestedScript = () => (request: ModelRequest) => {
    const tools = request.tools.map((t) => t.name);
    if (!isChildRequest(request)) {
      if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'outer task' } }] };
      return { text: 'done' };
    }
    if (JSON.stringify(request.messages[0]).includes('inner task')) return { text: `inner report; tools: ${tools.join(',')}` };
    if (!tools.includes('agent_start')) return { text: `no agent tools: ${tools.join(',')}` };
    if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'inner task' } }] };
    if (request.messages.length === 3) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1.1' } }] };
    return { text: `outer heard: ${resultText(request)}` };
  };

  it('at the default depth a sub-agent gets no agent tools', async () => {
    const { session, submit } = await open(nestedScript());
    await submit('go');
    await session.waitForAgents(new AbortController().signal);
    expect(session.jobs().map((j) => j.id)).toEqual(['sub-1']);
    expect(session.jobs()[0]!.result).toMatch(/^no agent tools: /);
    expect(session.jobs()[0]!.result).not.toMatch(/agent_/);
  });

  it('at depth 2 a sub-agent starts sub-1.1, which gets no agent tools of its own', async () => {
    const { session, submit, stream } = await open(nestedScript(), { agents: { maxAgentDepth: 2 } });
    await submit('go');
    await until(() => session.jobs().length === 2 && session.jobs().every((j) => j.state !== 'running' && j.state !== 'queued'), {
      what: 'both jobs to end',
      observe: () => session.jobs(),
    });
    expect(session.jobs().map((j) => [j.id, j.owner, j.depth])).toEqual([
      ['sub-1', undefined, undefined],
      ['sub-1.1', 'sub-1', 2],
    ]);
    expect(session.jobs()[0]!.result).toMatch(/^outer heard: inner report; tools: /);
    expect(session.jobs()[1]!.result).not.toMatch(/agent_/);
    expect(stream.requests.filter(isChildRequest)).toHaveLength(4);
  });
});
