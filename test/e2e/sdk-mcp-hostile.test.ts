import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { BIN } from '../support/run-cli.js';
import { until } from '../support/until.js';

/**
 * The built binary with a hand-written Agent SDK host on its stdin that names an in-process
 * MCP server (`sdkMcpServers`) and then answers its `mcp_message` requests badly: the server
 * fails with what went wrong, the session goes on, nothing hangs or crashes.
 */
const t = useMockProject();

/** Runs outrider under stream-json; `answer` is the host's reply payload to each mcp_message (undefined: none). */
function host(answer: (message: { id?: unknown; method?: string }) => unknown, settings: object = {}) {
  const child = spawn(
    process.execPath,
    [
      BIN,
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--settings',
      JSON.stringify(settings),
    ],
    { cwd: t.project, env: { PATH: process.env.PATH ?? '', HOME: t.home, ...t.env }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const lines: any[] = [];
  let buffer = '';
  let stderr = '';
  const write = (value: unknown) => child.stdin.write(`${JSON.stringify(value)}\n`);
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      lines.push(line);
      if (line.type === 'control_request' && line.request.subtype === 'mcp_message') {
        const payload = answer(line.request.message);
        if (payload !== undefined)
          write({ type: 'control_response', response: { subtype: 'success', request_id: line.request_id, response: payload } });
      }
    }
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  write({ type: 'control_request', request_id: 'init', request: { subtype: 'initialize', sdkMcpServers: ['calc'] } });
  return { child, lines, write, exit, stderr: () => stderr };
}

async function runTurn(session: ReturnType<typeof host>) {
  await until(() => session.lines.some((l) => l.type === 'control_response' && l.response.request_id === 'init'), {
    what: 'initialize to be answered',
  });
  session.write({ type: 'user', message: { role: 'user', content: 'hello' } });
  await until(() => session.lines.some((l) => l.type === 'result'), { what: 'the result' });
  session.child.stdin.end();
  expect(await session.exit).toBe(0);
  return session.lines.find((l) => l.type === 'system' && l.subtype === 'init');
}

describe('a hostile Agent SDK host of an in-process MCP server', () => {
  it('answers mcp_message with garbage: the server fails saying so, and the turn runs', async () => {
    t.mock.script({ text: 'fine' });
    const session = host(() => ({ mcp_response: { jsonrpc: '2.0', id: 'made-up', result: [] } }));
    const init = await runTurn(session);
    expect(init.mcp_servers).toEqual([{ name: 'calc', status: 'failed' }]);
    expect(session.lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'fine' });
    expect(session.stderr()).toContain('answered mcp_message without a JSON-RPC reply');
  });

  it('never answers: the server fails at mcp.startupTimeoutMs, its request is withdrawn, and the turn runs', async () => {
    t.mock.script({ text: 'fine' });
    const session = host(() => undefined, { mcp: { startupTimeoutMs: 300 } });
    const init = await runTurn(session);
    expect(init.mcp_servers).toEqual([{ name: 'calc', status: 'failed' }]);
    const asked = session.lines.find((l) => l.type === 'control_request')!.request_id;
    expect(session.lines).toContainEqual({ type: 'control_cancel_request', request_id: asked });
    expect(session.stderr()).toContain('did not start within 0.3s');
  });
});
