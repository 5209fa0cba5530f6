import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RequestError, type SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { afterEach, describe, expect, it } from 'vitest';
import { type AcpEditor, startAcp } from '../support/acp-client.js';
import { useMockProject } from '../support/e2e-project.js';
import { markedProcesses } from '../../src/core/platform/process-group.js';
import { exited, expectExited, pidWrittenTo } from '../support/process.js';
import { until } from '../support/until.js';

const t = useMockProject();
const editors: AcpEditor[] = [];
const pids: number[] = [];
afterEach(async () => {
  for (const editor of editors.splice(0)) await editor.close();
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});

async function editor(
  capabilities: Parameters<typeof startAcp>[0]['capabilities'] = { terminal: true },
  args: string[] = [],
): Promise<AcpEditor> {
  const started = await startAcp({ cwd: t.project, env: t.env, capabilities, args });
  editors.push(started);
  return started;
}

/** The text of the tool result the model received in request `index`. */
const resultIn = (index: number): string => JSON.stringify(t.mock.requests[index]!.body.messages.at(-1));
const allowOnce = { outcome: { outcome: 'selected', optionId: 'allow' } } as const;
const terminalsShown = (updates: SessionUpdate[]): string[] =>
  updates.flatMap((u) =>
    (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && u.content
      ? u.content.flatMap((c) => (c.type === 'terminal' ? [`${u.status}:${c.terminalId}`] : []))
      : [],
  );

describe('outrider acp: bash in the editor’s terminal (terminal/*)', () => {
  it('runs the parent’s commands in the editor’s terminal: the sandbox wrapper kept, the key blanked, the terminal shown', async () => {
    t.mock.script(
      { toolCalls: [{ name: 'bash', args: { command: 'echo from-the-editor' } }] },
      {
        toolCalls: [{ name: 'bash', args: { command: 'echo "key=${ANTHROPIC_API_KEY:-none} openai=${OPENAI_API_KEY:-none}"' } }],
      },
      { text: 'done' },
    );
    const acp = await editor();
    acp.onPermission = () => allowOnce;
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run' }] });
    expect(response.stopReason).toBe('end_turn');

    const [sandboxed, approved] = acp.terminals.all;
    expect(acp.terminals.all).toHaveLength(2);
    // Auto-allowed as read-only: bwrap (fed its seccomp program by a fixed prelude) around bash.
    expect(sandboxed!.request.command).toBe('bash');
    expect(sandboxed!.request.args!.some((arg) => arg.endsWith('bwrap'))).toBe(true);
    expect(sandboxed!.request.args).toEqual(expect.arrayContaining(['--unshare-pid', '--die-with-parent', '--seccomp']));
    expect(sandboxed!.request.args!.slice(-4)).toEqual(['bash', '--norc', '-c', 'echo from-the-editor']);
    // Approved by the user, sandbox off: bash as outrider would start it.
    expect([approved!.request.command, ...approved!.request.args!]).toEqual([
      'bash',
      '--norc',
      '-c',
      'echo "key=${ANTHROPIC_API_KEY:-none} openai=${OPENAI_API_KEY:-none}"',
    ]);
    for (const { request } of acp.terminals.all) {
      expect(request.cwd).toBe(t.project);
      expect(request.outputByteLimit).toBe(1_000_000);
      expect(request.env).toEqual(
        expect.arrayContaining([
          { name: 'ANTHROPIC_API_KEY', value: '' },
          { name: 'OPENAI_API_KEY', value: '' },
          { name: 'PAGER', value: 'cat' },
        ]),
      );
    }
    expect(acp.terminals.calls).toEqual([
      ...['create', 'wait_for_exit', 'output', 'release'],
      ...['create', 'wait_for_exit', 'output', 'release'],
    ]);
    expect(acp.terminals.all.every((terminal) => terminal.released)).toBe(true);
    expect(resultIn(1)).toContain('from-the-editor');
    expect(resultIn(2)).toContain('key=none openai=none');
    // Each call embeds its terminal while it runs and keeps it at its end.
    expect(terminalsShown(acp.updates(sessionId))).toEqual([
      'in_progress:term-1',
      'completed:term-1',
      'in_progress:term-2',
      'completed:term-2',
    ]);
  });

  it('a timeout kills the command and everything it started; the model is told it timed out', async () => {
    const pidFile = path.join(t.project, 'sleep.pid');
    t.mock.script(
      {
        toolCalls: [
          { name: 'bash', args: { command: 'sleep 1000 & echo $! > sleep.pid; echo started; wait', timeout_ms: 2000 } },
        ],
      },
      { text: 'done' },
    );
    const acp = await editor();
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    const prompt = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run' }] });
    const pid = await pidWrittenTo(pidFile, (seen) => pids.push(seen));
    expect((await prompt).stopReason).toBe('end_turn');
    await expectExited(pid);
    expect(acp.terminals.calls).toEqual(['create', 'wait_for_exit', 'kill', 'output', 'release']);
    expect(resultIn(1)).toContain('started');
    expect(resultIn(1)).toContain('timed out after 2s');
  });

  it('a sandboxed command that times out leaves nothing running: bwrap and all it started are gone', async () => {
    t.mock.script(
      { toolCalls: [{ name: 'bash', args: { command: 'sleep 1000 & sleep 1000; wait', timeout_ms: 1500 } }] },
      { text: 'done' },
    );
    const acp = await editor({ terminal: true }, ['--sandbox', 'workspace-write']);
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    const prompt = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run' }] });
    const terminal = await until(() => acp.terminals.all[0], { what: 'the terminal' });
    expect(terminal.request.args).toContain('--unshare-pid');
    const marker = terminal.request.env!.find((variable) => variable.name === 'OUTRIDER_RUN')!.value;
    // bwrap (twice: outside and as the namespace's init), bash and the two sleeps.
    await until(() => markedProcesses('OUTRIDER_RUN', marker).length >= 5, {
      what: 'bwrap and the sleeps to run',
      observe: () => markedProcesses('OUTRIDER_RUN', marker),
    });
    expect((await prompt).stopReason).toBe('end_turn');
    await until(() => markedProcesses('OUTRIDER_RUN', marker).every(exited), {
      what: 'every process of the command to exit',
      observe: () => markedProcesses('OUTRIDER_RUN', marker),
    });
    expect(resultIn(1)).toContain('timed out after 1.5s');
  });

  it('session/cancel mid-command kills it and what it started', async () => {
    const pidFile = path.join(t.project, 'cancel.pid');
    t.mock.script({ toolCalls: [{ name: 'bash', args: { command: 'sleep 1000 & echo $! > cancel.pid; wait' } }] });
    const acp = await editor();
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    const prompt = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run' }] });
    const pid = await pidWrittenTo(pidFile, (seen) => pids.push(seen));
    await acp.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    await expectExited(pid);
    await until(() => acp.terminals.all[0]?.released, {
      what: 'the terminal to be released',
      observe: () => acp.terminals.calls,
    });
    expect(acp.terminals.calls).toContain('kill');
  });

  it('an editor without terminal/create (-32601) runs commands locally, once each, and is asked only once', async () => {
    t.mock.script(
      { toolCalls: [{ name: 'bash', args: { command: 'echo ran >> count.txt; echo counted' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'echo again >> count.txt; echo second' } }] },
      { text: 'done' },
    );
    const acp = await editor();
    acp.terminals.beforeCreate = () => {
      throw RequestError.methodNotFound('terminal/create');
    };
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run' }] });
    expect(acp.terminals.calls).toEqual(['create']);
    expect(readFileSync(path.join(t.project, 'count.txt'), 'utf8')).toBe('ran\nagain\n');
    expect(resultIn(1)).toContain('counted');
    expect(resultIn(2)).toContain('second');
  });

  it('any other terminal/create error is the call’s error: the command is not run locally', async () => {
    t.mock.script({ toolCalls: [{ name: 'bash', args: { command: 'echo ran > ran.txt' } }] }, { text: 'done' });
    const acp = await editor();
    acp.terminals.beforeCreate = () => {
      throw RequestError.internalError(undefined, 'the editor broke');
    };
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run' }] });
    expect(acp.terminals.calls).toEqual(['create']);
    expect(existsSync(path.join(t.project, 'ran.txt'))).toBe(false);
    expect(resultIn(1)).toContain("the editor's terminal/create failed (Internal error: the editor broke)");
    expect(resultIn(1)).toContain('may or may not have started');
    expect(resultIn(1)).toContain('"is_error":true');
  });

  it('session/cancel while terminal/create is pending ends the turn; the terminal it answers with later is killed and released', async () => {
    const pidFile = path.join(t.project, 'late.pid');
    t.mock.script({ toolCalls: [{ name: 'bash', args: { command: 'sleep 1000 & echo $! > late.pid; wait' } }] });
    const acp = await editor();
    let answer: () => void = () => {};
    acp.terminals.beforeAnswer = () => new Promise((resolve) => (answer = resolve));
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    const prompt = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run' }] });
    // The editor started the command but has not answered terminal/create.
    const pid = await pidWrittenTo(pidFile, (seen) => pids.push(seen));
    await acp.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    await expectExited(pid);
    expect(acp.terminals.calls).toEqual(['create']);

    answer();
    await until(() => acp.terminals.all[0]!.released, {
      what: 'the late terminal to be released',
      observe: () => acp.terminals.calls,
    });
    expect(acp.terminals.calls).toEqual(['create', 'kill', 'release']);
  });

  it('a terminal that fails after it started is the call’s error: the command is not run again', async () => {
    t.mock.script({ toolCalls: [{ name: 'bash', args: { command: 'echo ran >> count.txt; echo counted' } }] }, { text: 'done' });
    const acp = await editor();
    acp.terminals.output = () => {
      throw new Error('the terminal went away');
    };
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run' }] });
    expect(readFileSync(path.join(t.project, 'count.txt'), 'utf8')).toBe('ran\n');
    expect(resultIn(1)).toContain("the editor's terminal failed while running the command");
    expect(resultIn(1)).toContain('"is_error":true');
  });

  it('background shells stay outrider’s own; an editor without terminal/* runs bash locally', async () => {
    t.mock.script(
      {
        toolCalls: [
          { name: 'bash', args: { command: 'echo in-the-background > bg.txt', run_in_background: true } },
          { name: 'bash', args: { command: 'echo foreground' } },
        ],
      },
      { text: 'done' },
      { toolCalls: [{ name: 'bash', args: { command: 'echo no-terminal' } }] },
      { text: 'done' },
    );
    const acp = await editor();
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run' }] });
    await until(() => existsSync(path.join(t.project, 'bg.txt')), { what: 'the background shell to run' });
    expect(acp.terminals.all.map((terminal) => terminal.request.args!.at(-1))).toEqual(['echo foreground']);

    const plain = await editor({});
    const other = await plain.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await plain.agent.request('session/set_mode', { sessionId: other.sessionId, modeId: 'yolo' });
    await plain.agent.request('session/prompt', { sessionId: other.sessionId, prompt: [{ type: 'text', text: 'run' }] });
    expect(plain.terminals.calls).toEqual([]);
    expect(resultIn(3)).toContain('no-terminal');
  });
});
