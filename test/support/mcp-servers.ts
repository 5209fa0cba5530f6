import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { REPO } from './run-cli.js';
import { until } from './until.js';

/** The real MCP servers the tests run, installed from the registry. */
export const MCP_BIN = {
  everything: path.join(REPO, 'node_modules/.bin/mcp-server-everything'),
  filesystem: path.join(REPO, 'node_modules/.bin/mcp-server-filesystem'),
};

/** A server-everything process listening over HTTP. */
export interface HttpMcpServer {
  /** `http://127.0.0.1:<port>`; the endpoint is `/mcp` (streamable HTTP) or `/sse`. */
  url: string;
  close(): Promise<void>;
}

/** Starts server-everything in `mode` on a free port and waits until it listens. */
export async function startHttpServer(mode: 'streamableHttp' | 'sse'): Promise<HttpMcpServer> {
  // A port found free can be taken before the server binds it: then it exits, and we try another.
  for (let attempt = 0; ; attempt += 1) {
    const port = await freePort();
    const child = spawn(process.execPath, [MCP_BIN.everything, mode], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const state = await until(
      () => (child.exitCode !== null ? 'exited' : /listening on port|running on port/i.test(output) && 'up'),
      {
        what: `server-everything ${mode} to listen on ${port}`,
        observe: () => output,
      },
    );
    if (state === 'up') return { url: `http://127.0.0.1:${port}`, close: () => stop(child) };
    if (attempt >= 4) throw new Error(`server-everything ${mode} did not start: ${output}`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.kill('SIGKILL');
  await closed;
}
