import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { BIN } from './run-cli.js';
import { until } from './until.js';

/**
 * The real binary in a real terminal: tmux runs `outrider`, keys go in with send-keys, and
 * the screen comes back with capture-pane. A private tmux server (`-L`), so these tests never
 * touch the user's own tmux sessions; `useTuiPanes()` kills its panes and folders after each test.
 */
// One tmux server per pane, named for it: a server whose last session was just killed exits
// on its own, and a new session on the same name could reach it while it dies ("server exited
// unexpectedly"). Fresh names never meet a dying server.
let socket = `outrider-e2e-${process.pid}-0`;

export const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

let counter = 0;
const servers: string[] = [];
const dirs: string[] = [];

/** Registers the clean-up of this file's panes (after each test) and tmux server (after all). */
export function useTuiPanes(): void {
  afterEach(() => {
    for (const server of servers.splice(0)) spawnSync('tmux', ['-L', server, 'kill-server']);
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  afterAll(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
  });
}

/** A temporary folder removed after the test. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

export interface LaunchOptions {
  /** The working directory (default: a fresh temp folder). */
  project?: string;
  /** OUTRIDER_HOME (default: a fresh temp folder). */
  home?: string;
  /** Files written into the project first, by relative path. */
  files?: Record<string, string>;
  /** Command-line arguments for outrider. */
  args?: string[];
}

/** Runs outrider in a new 120×40 pane with a private home, a project and these variables; returns the pane's name. */
export function launch(variables: string[], options: LaunchOptions = {}): string {
  const home = options.home ?? tempDir('outrider-home-');
  const project = options.project ?? tempDir('outrider-project-');
  for (const [file, text] of Object.entries(options.files ?? {})) writeFileSync(path.join(project, file), text);
  const name = `tui-${counter++}`;
  socket = `outrider-e2e-${process.pid}-${name}`;
  servers.push(socket);
  // `env -i` keeps the developer's own API keys out of the run.
  const command = [
    'env',
    '-i',
    `PATH=${process.env.PATH}`,
    'TERM=xterm-256color',
    `OUTRIDER_HOME=${home}`,
    ...variables,
    process.execPath,
    BIN,
    ...(options.args ?? []),
  ].join(' ');
  // tmux runs the command through sh: the echo leaves the exit status on the dead pane.
  tmux('new-session', '-d', '-x', '120', '-y', '40', '-s', name, '-c', project, `${command}; echo "[exit status $?]"`);
  tmux('set-option', '-t', name, 'remain-on-exit', 'on');
  tmux('set-option', '-s', 'escape-time', '0');
  return name;
}

export function capture(name: string): string {
  // -J joins lines the terminal wrapped, so long lines match as one.
  return tmux('capture-pane', '-p', '-J', '-t', name);
}

/** Polls the pane until `pattern` shows, or fails with what the screen held. */
export function screen(name: string, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  return until(
    () => {
      const text = capture(name);
      return pattern.test(text) && text;
    },
    { what: `${pattern} on the screen`, timeoutMs, intervalMs: 50, observe: () => capture(name) },
  );
}

export function type(name: string, text: string): void {
  tmux('send-keys', '-t', name, '-l', text);
  tmux('send-keys', '-t', name, 'Enter');
}

export function key(name: string, ...keys: string[]): void {
  tmux('send-keys', '-t', name, ...keys);
}

/** True once the pane's command has exited (the pane stays, showing the exit status). */
export function paneDead(name: string): boolean {
  return tmux('list-panes', '-t', name, '-F', '#{pane_dead}').trim() === '1';
}
