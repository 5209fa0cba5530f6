import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CommandRunner,
  type RunOnTerminal,
  type RunningCommand,
  type TerminalCommand,
  runOnTerminal,
} from '../../../src/core/tools/command-runner.js';
import { FakeClock, settle } from '../../support/fake-clock.js';
import { expectExited } from '../../support/process.js';

/** A runner whose `start` answers only when the test says so, recording what the core asked of it. */
function heldRunner() {
  const calls: string[] = [];
  let answer: (value: RunningCommand | undefined) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  let asked: { command: TerminalCommand; signal: AbortSignal } | undefined;
  const running: RunningCommand = {
    waitForExit: async () => {
      calls.push('wait_for_exit');
      return { code: 0, signal: null };
    },
    output: async () => {
      calls.push('output');
      return { text: 'out', truncated: false };
    },
    kill: async () => void calls.push('kill'),
    release: async () => void calls.push('release'),
  };
  const runner: CommandRunner = {
    start: (command, call) => {
      calls.push('create');
      asked = { command, signal: call.signal };
      return new Promise((resolve, reject) => {
        answer = resolve;
        fail = reject;
      });
    },
  };
  return {
    runner,
    calls,
    running,
    asked: () => asked!,
    answer: (value: RunningCommand | undefined) => answer(value),
    fail: (error: unknown) => fail(error),
  };
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** What the editor would start for `command`: a real process carrying its run marker. */
function startAsTheEditorWould(command: TerminalCommand): number {
  const env = Object.fromEntries(command.env.map(({ name, value }) => [name, value]));
  const child = spawn('sleep', ['1000'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  children.push(child);
  return child.pid!;
}

function run(clock: FakeClock, signal: AbortSignal, timeoutMs = 10_000): RunOnTerminal {
  return {
    plan: { kind: 'direct', file: 'bash', args: ['--norc', '-c', 'echo hi'], guard: 'none' },
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '' },
    blank: [],
    outputByteLimit: 1_000,
    timeoutMs,
    signal,
    timers: clock,
  };
}

describe('runOnTerminal while terminal/create is pending', () => {
  it('an abort ends the call at once; a terminal created afterwards is killed, released and swept', async () => {
    const clock = new FakeClock();
    const editor = heldRunner();
    const abort = new AbortController();
    const outcome = runOnTerminal(editor.runner, run(clock, abort.signal));
    await settle();
    abort.abort(new Error('the user cancelled'));
    await expect(outcome).rejects.toThrow('the user cancelled');
    expect(editor.asked().signal.aborted).toBe(true);
    expect(editor.calls).toEqual(['create']);

    const pid = startAsTheEditorWould(editor.asked().command);
    editor.answer(editor.running);
    await settle();
    expect(editor.calls).toEqual(['create', 'kill', 'release']);
    await expectExited(pid);
  });

  it('a timeout ends the call as timed out; a terminal created afterwards is killed and released', async () => {
    const clock = new FakeClock();
    const editor = heldRunner();
    const outcome = runOnTerminal(editor.runner, run(clock, new AbortController().signal, 2_000));
    await settle();
    clock.advance(2_000);
    await expect(outcome).resolves.toMatchObject({ kind: 'ran', exit: { stopped: 'timeout', code: null } });
    expect(editor.asked().signal.aborted).toBe(true);

    editor.answer(editor.running);
    await settle();
    expect(editor.calls).toEqual(['create', 'kill', 'release']);
    expect(clock.pending()).toBe(0);
  });

  it('a create that fails is the call’s failure, and what the editor may have started is swept', async () => {
    const clock = new FakeClock();
    const editor = heldRunner();
    const outcome = runOnTerminal(editor.runner, run(clock, new AbortController().signal));
    await settle();
    const pid = startAsTheEditorWould(editor.asked().command);
    editor.fail(new Error('Internal error: the editor broke'));
    const result = await outcome;
    expect(result).toEqual({
      kind: 'failed',
      message: expect.stringContaining("the editor's terminal/create failed (Internal error: the editor broke)"),
    });
    expect(result.kind === 'failed' && result.message).toContain('outrider did not run the command itself');
    expect(result.kind === 'failed' && result.message).toContain('Ask the user to check the editor');
    await expectExited(pid);
  });

  it('a runner that has no terminal leaves the command to run locally', async () => {
    const clock = new FakeClock();
    const editor = heldRunner();
    const outcome = runOnTerminal(editor.runner, run(clock, new AbortController().signal));
    await settle();
    editor.answer(undefined);
    await expect(outcome).resolves.toEqual({ kind: 'not-started' });
    expect(clock.pending()).toBe(0);
  });

  it('a create that answers in time runs as before', async () => {
    const clock = new FakeClock();
    const editor = heldRunner();
    const outcome = runOnTerminal(editor.runner, run(clock, new AbortController().signal));
    await settle();
    editor.answer(editor.running);
    await expect(outcome).resolves.toMatchObject({ kind: 'ran', text: 'out', exit: { code: 0 } });
    expect(editor.calls).toEqual(['create', 'wait_for_exit', 'output', 'release']);
    expect(editor.asked().signal.aborted).toBe(false);
  });

  it('an already cancelled call asks nothing of the editor', async () => {
    const abort = new AbortController();
    abort.abort(new Error('cancelled before'));
    const editor = heldRunner();
    await expect(runOnTerminal(editor.runner, run(new FakeClock(), abort.signal))).rejects.toThrow('cancelled before');
    expect(editor.calls).toEqual([]);
  });
});
