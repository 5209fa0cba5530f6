/**
 * A private `redis-server` per test: its own loopback port and folder, nothing saved to disk (unless asked),
 * awaited by polling PING (no fixed sleep), stopped and its folder removed afterwards. Tests of
 * outages kill it with SIGKILL and start it again on the same port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { exited } from './process.js';
import { until } from './until.js';

export interface TestRedis {
  /** redis://127.0.0.1:PORT (with the password in it when one was set). */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** The running server's pid (changes on restart). */
  pid(): number;
  /** SIGKILL, then wait until the process is gone: an outage. */
  kill9(): Promise<void>;
  /** A new server on the same port (after kill9 or stop): empty, unless started with `persist`. */
  restart(): Promise<void>;
  /** SIGTERM and wait for the exit; the folder stays until `dispose`. */
  stop(): Promise<void>;
  /** Stops the server and removes its folder. */
  dispose(): Promise<void>;
}

export interface TestRedisOptions {
  /** `requirepass`: the URL then carries it (redis://:password@127.0.0.1:PORT). */
  password?: string;
  /**
   * Keep the data across a kill and restart (an append-only file, synced on every write), as a
   * production Redis would: for outage tests whose jobs must still be there afterwards.
   */
  persist?: boolean;
}

/** A free loopback port: bound to port 0, read, released. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** True when something on `port` answers PING the way a Redis server does (+PONG, or -NOAUTH behind a password). */
export function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
  });
}

function launch(port: number, dir: string, options: TestRedisOptions): ChildProcess {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    ...(options.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
    '--daemonize',
    'no',
    '--logfile',
    path.join(dir, 'redis.log'),
    ...(options.password ? ['--requirepass', options.password] : []),
  ];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  child.on('error', () => undefined);
  return child;
}

async function waitForExit(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const pid = child.pid;
  await until(() => child.exitCode !== null || child.signalCode !== null || exited(pid), {
    what: `redis-server ${pid} to exit`,
  });
}

/** Starts a private redis-server; call `dispose` when done (or use `useRedis`). */
export async function startRedis(options: TestRedisOptions = {}): Promise<TestRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-redis-'));
  let port = 0;
  let child: ChildProcess | undefined;
  // The port is free when read and taken when redis binds it: another process may take it in
  // between, so a start that never answers is tried again on a fresh port.
  for (let attempt = 0; attempt < 3 && !child; attempt += 1) {
    port = await freePort();
    const candidate = launch(port, dir, options);
    try {
      await until(
        async () => {
          if (candidate.exitCode !== null) throw new Error(`redis-server exited with ${candidate.exitCode}`);
          return answersPing(port);
        },
        { what: `redis-server on port ${port} to answer PING`, timeoutMs: 10_000, intervalMs: 10 },
      );
      child = candidate;
    } catch (error) {
      candidate.kill('SIGKILL');
      await waitForExit(candidate);
      if (attempt === 2) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : '';
  const url = `redis://${auth}127.0.0.1:${port}`;

  const stop = async (signal: NodeJS.Signals) => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    running.kill(signal);
    await waitForExit(running);
  };
  return {
    url,
    port,
    dir,
    pid: () => child?.pid ?? -1,
    kill9: () => stop('SIGKILL'),
    stop: () => stop('SIGTERM'),
    async restart() {
      await stop('SIGTERM');
      const next = launch(port, dir, options);
      child = next;
      await until(
        async () => {
          if (next.exitCode !== null) throw new Error(`redis-server exited with ${next.exitCode} on restart`);
          return answersPing(port);
        },
        { what: `redis-server to answer PING again on port ${port}`, timeoutMs: 10_000, intervalMs: 10 },
      );
    },
    async dispose() {
      await stop('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A `startRedis` whose servers are disposed after each test. */
export function useRedis(): (options?: TestRedisOptions) => Promise<TestRedis> {
  const started: TestRedis[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((redis) => redis.dispose()));
  });
  return async (options) => {
    const redis = await startRedis(options);
    started.push(redis);
    return redis;
  };
}
