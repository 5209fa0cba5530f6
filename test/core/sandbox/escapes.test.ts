import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxConfig, SandboxProbe } from '../../../src/core/sandbox/plan.js';
import { createBashTool } from '../../../src/core/tools/bash.js';
import type { ToolOutput, Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { executeTool } from '../../../src/core/tools/registry.js';
import { requireBwrap } from '../../support/bwrap.js';
import { type TempDir, tempDir } from '../tools/harness.js';
import { until } from '../../support/until.js';

// Each escape below is a command a read-only check could wrongly let through. The parser is
// not asked at all: the call carries sandbox 'read-only' as if the policy had said so, and
// the sandbox alone must stop it. Every escape is first shown to work without the sandbox,
// so the fixture really writes.

let probe: Extract<SandboxProbe, { ok: true }>;
let dir: TempDir;
let workspace: Workspace;
const outsideFiles: string[] = [];

beforeAll(async () => {
  const scratch = tempDir('outrider-probe-');
  try {
    probe = await requireBwrap(makeWorkspace(scratch.root));
  } finally {
    scratch.cleanup();
  }
});
beforeEach(() => {
  dir = tempDir('outrider-sandbox-');
  workspace = makeWorkspace(dir.root);
  dir.write('a.txt', 'hello\n');
  dir.write('v.txt', 'keep me\n');
});
afterEach(() => {
  for (const file of outsideFiles.splice(0)) rmSync(file, { force: true, recursive: true });
  dir.cleanup();
});

/** A path in the real /tmp, outside the workspace, removed after the test. */
function outsidePath(name: string): string {
  const file = path.join('/tmp', `outrider-${name}-${randomBytes(4).toString('hex')}`);
  outsideFiles.push(file);
  return file;
}

function tool(config: Partial<SandboxConfig> = {}, env?: NodeJS.ProcessEnv) {
  return createBashTool({
    sandbox: { config: { mode: 'off', network: false, ...config }, probe: () => Promise.resolve(probe) },
    ...(env ? { env } : {}),
  });
}

/** As the policy hands an auto-allowed command over: judged read-only. */
function readOnly(command: string): Promise<ToolOutput> {
  return executeTool(tool(), { command }, { signal: new AbortController().signal, workspace, sandbox: 'read-only' });
}

/** As if the user had approved it, with the sandbox setting `config`. */
function approved(command: string, config: Partial<SandboxConfig> = {}, env?: NodeJS.ProcessEnv): Promise<ToolOutput> {
  return executeTool(tool(config, env), { command }, { signal: new AbortController().signal, workspace });
}

const inWorkspace = (name: string) => path.join(dir.root, name);

describe('read-only sandbox: the escapes a parser might miss', () => {
  it('find -exec writing outside the workspace', async () => {
    const target = outsidePath('owned');
    const command = `find a.txt -exec sh -c 'echo owned > ${target}' {} +`;
    await approved(command);
    expect(readFileSync(target, 'utf8')).toBe('owned\n');
    rmSync(target);

    const out = await readOnly(command);
    expect(existsSync(target)).toBe(false);
    // It wrote to the private /tmp, which is gone with the command.
    expect(out.content).toBe('(no output)');
  });

  it('find -delete', async () => {
    const command = 'find . -name v.txt -delete';
    const out = await readOnly(command);
    expect(out.content).toMatch(/Read-only file system/);
    expect(readFileSync(inWorkspace('v.txt'), 'utf8')).toBe('keep me\n');
    await approved(command);
    expect(existsSync(inWorkspace('v.txt'))).toBe(false);
  });

  it('git diff --output', async () => {
    execFileSync('git', ['init', '-q', dir.root]);
    const out = await readOnly('git diff --output=pwned');
    expect(out.content).toMatch(/Read-only file system/);
    expect(existsSync(inWorkspace('pwned'))).toBe(false);
    await approved('git diff --output=pwned');
    expect(existsSync(inWorkspace('pwned'))).toBe(true);
  });

  it('find -fprint', async () => {
    const out = await readOnly('find . -fprint pwned');
    expect(out.content).toMatch(/Read-only file system/);
    expect(existsSync(inWorkspace('pwned'))).toBe(false);
    await approved('find . -fprint pwned');
    expect(existsSync(inWorkspace('pwned'))).toBe(true);
  });

  it('file -C -m (compiles a magic file next to it)', async () => {
    dir.write('m', '0\tstring\tOUTRIDER\toutrider test\n');
    await readOnly('file -C -m m');
    expect(existsSync(inWorkspace('m.mgc'))).toBe(false);
    await approved('file -C -m m');
    expect(existsSync(inWorkspace('m.mgc'))).toBe(true);
  });

  it('touch', async () => {
    const out = await readOnly('touch pwned');
    expect(out.content).toMatch(/Read-only file system/);
    expect(existsSync(inWorkspace('pwned'))).toBe(false);
  });

  it('writing HOME', async () => {
    const home = tempDir('outrider-home-');
    try {
      const out = await executeTool(
        tool({}, { ...process.env, HOME: home.root }),
        { command: 'touch "$HOME/pwned"; ls "$HOME"' },
        { signal: new AbortController().signal, workspace, sandbox: 'read-only' },
      );
      expect(out.content).toMatch(/Read-only file system/);
      expect(existsSync(path.join(home.root, 'pwned'))).toBe(false);
    } finally {
      home.cleanup();
    }
  });

  it('a TCP connection to a server on this machine', async () => {
    const server = await listening();
    try {
      const command = connectCommand(`${server.port}, '127.0.0.1'`);
      expect((await approved(command)).content).toBe('connected');
      await server.sawConnections(1);

      const out = await readOnly(command);
      expect(out.content).toMatch(/^error ECONNREFUSED|^error ENETUNREACH/);
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("a Unix socket outside (a daemon's: Docker, D-Bus, tmux)", async () => {
    const socket = inWorkspace('daemon.sock');
    const server = await listening(socket);
    try {
      const command = connectCommand(JSON.stringify(socket));
      expect((await approved(command)).content).toBe('connected');
      await server.sawConnections(1);

      const out = await readOnly(command);
      expect(out.content).toBe('error EPERM');
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe('read-only sandbox: what still works', () => {
  it('reads the workspace, HOME and the tree; git works', async () => {
    execFileSync('git', ['init', '-q', dir.root]);
    execFileSync('git', ['-C', dir.root, 'add', 'a.txt']);
    dir.write('a.txt', 'hello\nworld\n');
    expect((await readOnly('cat a.txt')).content).toBe('hello\nworld');
    expect((await readOnly('git status --short')).content).toBe('AM a.txt\n?? v.txt');
    expect((await readOnly('git diff --stat')).content).toMatch(/a\.txt \| 1 \+/);
    expect((await readOnly(`ls -d ${JSON.stringify(os.homedir())}`)).content).toBe(os.homedir());
    expect((await readOnly('head -c 4 /etc/hostname >/dev/null && echo read')).content).toBe('read');
  });

  it('has a private /tmp it can write, gone afterwards', async () => {
    const file = outsidePath('private');
    expect((await readOnly(`echo x > ${file} && cat ${file} && echo "$TMPDIR"`)).content).toBe('x\n/tmp');
    expect(existsSync(file)).toBe(false);
  });

  it('runs in its own pid namespace: nothing outside is visible, nothing started outlives it', async () => {
    const tag = `305.${randomBytes(3).readUIntBE(0, 3)}`;
    const out = await readOnly(`cat /proc/1/comm; setsid sleep ${tag} & echo started`);
    expect(out.content).toBe('bwrap\nstarted');
    expect(processesRunning(`sleep\0${tag}\0`)).toEqual([]);
  });
});

describe('workspace-write sandbox', () => {
  it('writes the workspace and /tmp, not HOME, not the network', async () => {
    const home = tempDir('outrider-home-');
    const tmpFile = outsidePath('ws-tmp');
    const server = await listening();
    try {
      const env = { ...process.env, HOME: home.root };
      const out = await approved(
        [
          'touch made-here && echo workspace ok',
          `echo t > ${tmpFile} && echo tmp ok`,
          'touch "$HOME/pwned" 2>/dev/null || echo home refused',
          `${connectCommand(`${server.port}, '127.0.0.1'`)}`,
        ].join('; '),
        { mode: 'workspace-write' },
        env,
      );
      expect(out.content).toMatch(/^workspace ok\ntmp ok\nhome refused\nerror (ECONNREFUSED|ENETUNREACH)$/);
      expect(existsSync(inWorkspace('made-here'))).toBe(true);
      expect(readFileSync(tmpFile, 'utf8')).toBe('t\n');
      expect(existsSync(path.join(home.root, 'pwned'))).toBe(false);
      expect(server.connections()).toBe(0);
    } finally {
      home.cleanup();
      await server.close();
    }
  });

  it('does not write the real HOME or a directory outside', async () => {
    const name = `outrider-pwned-${randomBytes(4).toString('hex')}`;
    const inHome = path.join(os.homedir(), name);
    outsideFiles.push(inHome);
    const out = await approved(`touch ${JSON.stringify(inHome)} /etc/${name}`, { mode: 'workspace-write' });
    expect(out.content).toMatch(/Read-only file system[\s\S]*Read-only file system/);
    expect(existsSync(inHome)).toBe(false);
    expect(existsSync(`/etc/${name}`)).toBe(false);
  });

  it('reaches the network when the setting allows it', async () => {
    const server = await listening();
    try {
      const out = await approved(connectCommand(`${server.port}, '127.0.0.1'`), { mode: 'workspace-write', network: true });
      expect(out.content).toBe('connected');
      await server.sawConnections(1);
    } finally {
      await server.close();
    }
  });

  it('an approved command under --sandbox read-only cannot write either', async () => {
    const out = await approved('touch pwned', { mode: 'read-only' });
    expect(out.content).toMatch(/Read-only file system/);
    expect(existsSync(inWorkspace('pwned'))).toBe(false);
  });
});

/** A node one-liner that connects to `target` (net.connect's arguments) and says how it went. */
function connectCommand(target: string): string {
  const script = `require('net').connect(${target}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => { console.log('error ' + e.code); process.exit(0); })`;
  return `${JSON.stringify(process.execPath)} -e ${shellQuote(script)}`;
}

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** A server on 127.0.0.1 (or a Unix socket) that counts connections. */
async function listening(socketPath?: string) {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) =>
    socketPath ? server.listen(socketPath, resolve) : server.listen(0, '127.0.0.1', resolve),
  );
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    connections: () => count,
    /** The connection event may come just after the client's exit: poll for it with a deadline. */
    async sawConnections(n: number): Promise<void> {
      await until(() => count >= n, { what: `${n} connection(s) to the listener`, timeoutMs: 5_000, observe: () => count });
      expect(count).toBe(n);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Pids whose command line holds `needle` (NUL-separated arguments). */
function processesRunning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}
