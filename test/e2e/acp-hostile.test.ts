import { spawn } from 'node:child_process';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { jsonRpcLines, startAcp } from '../support/acp-client.js';
import { useMockProject } from '../support/e2e-project.js';
import { BIN } from '../support/run-cli.js';
import { until } from '../support/until.js';

const t = useMockProject();

/** `outrider acp` driven by raw lines, as a broken or hostile editor would write them. */
function rawAcp() {
  const child = spawn(process.execPath, [BIN, 'acp'], {
    cwd: t.project,
    env: { PATH: process.env.PATH ?? '', HOME: t.home, ...t.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  let exit: number | null | undefined;
  child.on('close', (code) => (exit = code));
  const messages = () => jsonRpcLines(stdout) as { id?: unknown; result?: any; error?: { code: number; message: string } }[];
  return {
    send: (line: string) => child.stdin.write(`${line}\n`),
    /** The answer to request `id` (null: an error about a line that had no id), once written. */
    answer: (id: unknown, count = 1) =>
      until(() => messages().filter((m) => m.id === id).length >= count && messages().filter((m) => m.id === id), {
        what: `the answer to request ${String(id)}`,
        observe: () => ({ stdout, stderr }),
      }),
    stderr: () => stderr,
    alive: () => exit === undefined,
    end: async () => {
      child.stdin.end();
      return until(() => exit !== undefined && { code: exit }, { what: 'outrider acp to exit', observe: () => stderr });
    },
  };
}

const request = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('outrider acp against hostile input', () => {
  it('answers malformed JSON, batches, unknown methods, bad params and unknown sessions with clear errors, and goes on', async () => {
    const acp = rawAcp();
    // Before initialize, a session request is refused.
    acp.send(request(1, 'session/new', { cwd: t.project, mcpServers: [] }));
    expect((await acp.answer(1))[0]!.error?.code).toBe(-32600);
    acp.send(request(2, 'initialize', { protocolVersion: 1, clientCapabilities: {} }));
    expect((await acp.answer(2))[0]!.result.protocolVersion).toBe(1);

    acp.send('{"jsonrpc":"2.0","id":3,"method":"session/new", this is not JSON');
    expect((await acp.answer(null))[0]!.error).toMatchObject({ code: -32700 });
    acp.send(JSON.stringify([{ jsonrpc: '2.0', id: 4, method: 'initialize', params: {} }]));
    expect((await acp.answer(null, 2))[1]!.error).toMatchObject({ code: -32600 });
    acp.send(request(5, 'session/explode', {}));
    expect((await acp.answer(5))[0]!.error).toMatchObject({ code: -32601, message: expect.stringContaining('session/explode') });
    acp.send(request(6, 'session/new', { mcpServers: [] }));
    expect((await acp.answer(6))[0]!.error?.code).toBe(-32602);
    acp.send(request(7, 'session/new', { cwd: 'relative/dir', mcpServers: [] }));
    expect((await acp.answer(7))[0]!.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('not an absolute path'),
    });
    acp.send(request(8, 'session/prompt', { sessionId: 'no-such-session', prompt: [{ type: 'text', text: 'hello' }] }));
    expect((await acp.answer(8))[0]!.error).toMatchObject({
      code: -32002,
      message: expect.stringContaining('no session no-such-session here'),
    });
    acp.send(request(9, 'session/load', { sessionId: 'no-such-session', cwd: t.project, mcpServers: [] }));
    expect((await acp.answer(9))[0]!.error).toMatchObject({ code: -32002, message: expect.stringContaining('no-such-session') });
    // An unknown notification and a cancel for nothing are dropped without an answer.
    acp.send(JSON.stringify({ jsonrpc: '2.0', method: 'made/up', params: {} }));
    acp.send(JSON.stringify({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'nothing' } }));

    // Still serving: a session opens.
    acp.send(request(10, 'session/new', { cwd: t.project, mcpServers: [] }));
    expect(typeof (await acp.answer(10))[0]!.result.sessionId).toBe('string');
    expect(acp.alive()).toBe(true);
    expect(await acp.end()).toEqual({ code: 0 });
    // None of it reached the model as a prompt.
    expect(t.mock.requests).toEqual([]);
  });

  it('plain outrider given JSON-RPC on stdin refuses it at once instead of sending it to the model', async () => {
    const child = spawn(process.execPath, [BIN], {
      cwd: t.project,
      env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...t.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    // An editor writes initialize and waits for the answer: stdin stays open.
    child.stdin.write(`${request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} })}\n`);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('stdin holds JSON-RPC, not a prompt: for an editor speaking ACP run `outrider acp`');
    expect(t.mock.requests).toEqual([]);
  });

  it('SIGTERM mid-turn closes the session (its model request dropped) and exits', async () => {
    t.mock.script({ fault: { kind: 'hang' } });
    const acp = await startAcp({ cwd: t.project, env: t.env });
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    const prompt = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'wait' }] });
    prompt.catch(() => {});
    await until(() => t.mock.inFlight() === 1, { what: 'the model request' });
    process.kill(acp.pid, 'SIGTERM');
    await until(() => t.mock.inFlight() === 0, { what: 'the request to be dropped', observe: () => acp.stderr() });
    expect(await acp.close()).toEqual({ code: 0, signal: null });
  });

  it('refuses the flags that make no sense for an editor, on stderr, with a usage exit', async () => {
    const child = spawn(process.execPath, [BIN, 'acp', '-p', 'hello'], {
      cwd: t.project,
      env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...t.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('outrider acp takes its prompts from the editor: drop -p');
  });
});
