import { RequestError, type SendRequestOptions } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { type AcpTerminal, terminalRunner } from '../../../src/cli/acp/terminal-runner.js';
import type { TerminalCommand } from '../../../src/core/index.js';

const command: TerminalCommand = { command: 'bash', args: ['-c', 'true'], cwd: '/', env: [], outputByteLimit: 100 };

/** An editor's terminal/* whose create does what `create` says, recording how it was asked. */
function editor(create: () => Promise<{ terminalId: string }>) {
  const asked: (SendRequestOptions | undefined)[] = [];
  const shown: string[] = [];
  const terminal: AcpTerminal = {
    create: (_params, options) => {
      asked.push(options);
      return create();
    },
    output: async () => ({ output: '', truncated: false }),
    waitForExit: async () => ({ exitCode: 0 }),
    kill: async () => ({}),
    release: async () => ({}),
  };
  const runner = terminalRunner(terminal, () => ({ sessionId: 's', show: (_call, id) => shown.push(id) }));
  return { runner, asked, shown };
}

describe('terminalRunner: when terminal/create fails', () => {
  it('an editor without the method (-32601) runs commands locally, and is not asked again', async () => {
    const { runner, asked } = editor(async () => {
      throw RequestError.methodNotFound('terminal/create');
    });
    const signal = new AbortController().signal;
    await expect(runner.start(command, { signal })).resolves.toBeUndefined();
    await expect(runner.start(command, { signal })).resolves.toBeUndefined();
    expect(asked).toHaveLength(1);
  });

  it('any other error may hide a started command: it rejects, and the editor is asked again next time', async () => {
    const errors = [RequestError.internalError(undefined, 'the editor broke'), new Error('the connection closed')];
    const { runner, asked } = editor(async () => {
      throw errors.shift()!;
    });
    const signal = new AbortController().signal;
    await expect(runner.start(command, { signal })).rejects.toThrow('the editor broke');
    await expect(runner.start(command, { signal })).rejects.toThrow('the connection closed');
    expect(asked).toHaveLength(2);
  });

  it('before the session is open nothing is sent: the command runs locally', async () => {
    let created = 0;
    const terminal: AcpTerminal = {
      create: async () => ({ terminalId: `t${++created}` }),
      output: async () => ({ output: '', truncated: false }),
      waitForExit: async () => ({ exitCode: 0 }),
      kill: async () => ({}),
      release: async () => ({}),
    };
    const runner = terminalRunner(terminal, () => undefined);
    await expect(runner.start(command, { signal: new AbortController().signal })).resolves.toBeUndefined();
    expect(created).toBe(0);
  });

  it('a stop cancels the pending request, keeps its answer, and does not show a terminal created after it', async () => {
    let answer: (value: { terminalId: string }) => void = () => {};
    const { runner, asked, shown } = editor(() => new Promise((resolve) => (answer = resolve)));
    const stop = new AbortController();
    const started = runner.start(command, { callId: 'call-1', signal: stop.signal });
    expect(asked[0]).toEqual({ cancellationSignal: stop.signal });
    stop.abort();
    answer({ terminalId: 'late' });
    await expect(started).resolves.toBeDefined();
    expect(shown).toEqual([]);
  });
});
