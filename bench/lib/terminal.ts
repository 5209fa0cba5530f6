/**
 * The built binary in a real pseudo-terminal, for the TUI figures and the README's capture:
 * a tmux pane (a real terminal emulator: keys in, screen out, every byte the app wrote kept
 * by pipe-pane), and a bare `script` pty read as a stream (no polling, for start-up timing).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { until } from '../../test/support/until.js';
import { BIN } from './processes.js';

/** Ink's begin-synchronized-update marker: it starts every frame Ink writes to a terminal. */
export const FRAME_START = '\u001B[?2026h';

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** Text as a terminal shows it: escape sequences (CSI, OSC) removed. */
export function stripEscapes(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001B\[[0-9;?<>=]*[ -/]*[@-~]/g, '').replace(/\u001B\][^\u0007\u001B]*(\u0007|\u001B\\)/g, '');
}

/** How often `marker` occurs in `text`. */
export function occurrences(text: string, marker: string): number {
  let count = 0;
  for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + marker.length)) count += 1;
  return count;
}

export interface PaneOptions {
  /** Unique among the panes alive at once: names the private tmux server. */
  name: string;
  node: string;
  cwd: string;
  /** The app's whole environment (TERM and PATH are added). */
  env: Record<string, string>;
  args?: string[];
  /** Where the bytes the app writes are kept. */
  log: string;
  width?: number;
  height?: number;
}

export interface Pane {
  /** The pid of the app itself (the pane's shell execs it). */
  pid(): number;
  capture(): string;
  /** Polls the screen until `pattern` shows. */
  screen(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Literal text, then Enter. */
  type(text: string): void;
  key(...keys: string[]): void;
  /** Bytes the app wrote so far (what pipe-pane has passed on). */
  bytesWritten(): number;
  output(): string;
  /** Kills the pane's private server: the app gets SIGHUP and quits. */
  close(): void;
}

/** Starts outrider in a fresh tmux server; the byte log is attached before the app starts. */
export function startPane(options: PaneOptions): Pane {
  const socket = `outrider-bench-${process.pid}-${options.name}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  writeFileSync(options.log, '');
  const env = { PATH: process.env.PATH ?? '', TERM: 'xterm-256color', ...options.env };
  const command = [
    'exec',
    'env',
    '-i',
    ...Object.entries(env).map(([k, v]) => shellQuote(`${k}=${v}`)),
    shellQuote(options.node),
    shellQuote(BIN),
    ...(options.args ?? []).map(shellQuote),
  ].join(' ');
  tmux(
    'new-session',
    '-d',
    '-x',
    String(options.width ?? 120),
    '-y',
    String(options.height ?? 40),
    '-s',
    'bench',
    '-c',
    options.cwd,
    `read go; ${command}`,
  );
  const pane = tmux('display-message', '-p', '-t', 'bench', '#{pane_id}').trim();
  const socketPath = tmux('display-message', '-p', '-t', 'bench', '#{socket_path}').trim();
  // A pane whose app exited stays, so its last words can be read.
  tmux('set-option', '-t', 'bench', 'remain-on-exit', 'on');
  tmux('set-option', '-s', 'escape-time', '0');
  tmux('pipe-pane', '-t', pane, '-o', `cat >> ${shellQuote(options.log)}`);
  tmux('send-keys', '-t', pane, 'Enter');
  const capture = () => tmux('capture-pane', '-p', '-J', '-t', pane);
  return {
    pid: () => Number(tmux('display-message', '-p', '-t', pane, '#{pane_pid}').trim()),
    capture,
    screen: (pattern, timeoutMs = 30_000) =>
      until(() => pattern.test(capture()) && capture(), {
        what: `${pattern} on the bench pane`,
        timeoutMs,
        intervalMs: 50,
        observe: capture,
      }),
    type(text) {
      tmux('send-keys', '-t', pane, '-l', text);
      tmux('send-keys', '-t', pane, 'Enter');
    },
    key: (...keys) => void tmux('send-keys', '-t', pane, ...keys),
    bytesWritten: () => statSync(options.log).size,
    output: () => readFileSync(options.log, 'latin1'),
    close() {
      spawnSync('tmux', ['-L', socket, 'kill-server']);
      // tmux leaves the socket file of a server it killed.
      rmSync(socketPath, { force: true });
    },
  };
}

/** Fails with what to install when tmux or util-linux `script` is missing. */
export function requireTerminalTools(): void {
  for (const [tool, args] of [
    ['tmux', ['-V']],
    ['script', ['--version']],
  ] as const) {
    if (spawnSync(tool, args).error) {
      throw new Error(
        `the TUI figures run the app in a terminal and need ${tool} on PATH: install it (apt-get install ${tool === 'script' ? 'util-linux' : 'tmux'})`,
      );
    }
  }
}

/** User + system CPU of a live process so far, from /proc (Linux), in ms. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / clockTicks();
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

/**
 * A process in a bare pty (util-linux `script`), its terminal output read as it comes. The
 * pty is sized with stty before the program runs (script's own input is a pipe, not a tty).
 */
export interface StreamPty {
  child: ChildProcess;
  /** Everything the program wrote so far, escape sequences included. */
  output(): string;
  /** Resolves with performance.now() at the first output chunk after which `seen(text)` holds. */
  when(seen: (text: string) => boolean, timeoutMs?: number): Promise<number>;
  write(keys: string): void;
  /** Ends it (SIGTERM to script: the program gets SIGHUP) and waits for the exit. */
  close(): Promise<void>;
}

export function startPty(options: {
  command: string[];
  cwd: string;
  env: Record<string, string>;
  width?: number;
  height?: number;
}): StreamPty {
  const shell = `stty rows ${options.height ?? 40} cols ${options.width ?? 120}; exec ${options.command.map(shellQuote).join(' ')}`;
  const child = spawn('script', ['-qfec', shell, '/dev/null'], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', SHELL: '/bin/sh', TERM: 'xterm-256color', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let text = '';
  const waiters: { seen: (text: string) => boolean; resolve: (at: number) => void }[] = [];
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    const at = performance.now();
    text += chunk;
    for (const waiter of waiters.splice(0)) {
      if (waiter.seen(text)) waiter.resolve(at);
      else waiters.push(waiter);
    }
  });
  child.stderr!.resume();
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    child,
    output: () => text,
    when(seen, timeoutMs = 30_000) {
      if (seen(text)) return Promise.resolve(performance.now());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(
            new Error(`the pty did not show what was awaited in ${timeoutMs} ms; it showed:\n${stripEscapes(text).slice(-2000)}`),
          );
        }, timeoutMs);
        waiters.push({
          seen,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        });
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`the pty's program exited before it showed what was awaited:\n${stripEscapes(text).slice(-2000)}`));
        });
      });
    },
    write: (keys) => void child.stdin!.write(keys),
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
