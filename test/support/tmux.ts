import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, writeSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type MockProvider, type RecordedRequest, startMockProvider } from './mock-provider.js';
import { exited } from './process.js';
import { BIN } from './run-cli.js';
import { until } from './until.js';

/** The preload behind `held` (see hold-start.mjs). */
const HOLD_START = new URL('./hold-start.mjs', import.meta.url).pathname;

/** How a pane is started: its size, extra variables and arguments, files in the project. */
export interface LaunchOptions {
  width?: number;
  height?: number;
  /** PATH inside the app (the test's own by default). */
  path?: string;
  /** `NAME=value` pairs beyond the clean environment. */
  variables?: string[];
  args?: string[];
  /** Files written into the project before the start (path → content). */
  files?: Record<string, string>;
  /** Settings written to the private home's settings.json. */
  settings?: Record<string, unknown>;
  /** OUTRIDER_HOME: fresh by default; an earlier pane's home for a second run. */
  home?: string;
  /** The working directory: fresh by default; an earlier pane's project for a second run. */
  project?: string;
  /**
   * Holds the start-up just after the terminal goes raw (before the trust question and the
   * app), until `release()`: keys typed meanwhile are certain to come before either.
   */
  held?: boolean;
}

/** One running pane: keys in, screen out, and the bytes the app wrote. */
export interface Pane {
  name: string;
  home: string;
  project: string;
  /** What the screen shows now; with `history`, the scrollback above it too. */
  capture(options?: { history?: boolean }): string;
  /** Polls until `pattern` shows (the scrollback included with `history`), or fails with the screen. */
  screen(pattern: RegExp, options?: { timeoutMs?: number; history?: boolean }): Promise<string>;
  /** Types the text literally, then Enter. */
  type(text: string): void;
  /** tmux key names (`Escape`, `C-c`, `Enter`, `BTab`) or literal text with `-l`. */
  key(...keys: string[]): void;
  resize(width: number, height: number): void;
  /** The pane's terminal takes keys one by one (raw mode: no line editing, no echo). */
  raw(): boolean;
  /** Pastes text as a terminal does (bracketed when the app asked for it). */
  paste(text: string): void;
  /** Sends the terminal's focus report: focus back (`ESC[I`) or away (`ESC[O`). */
  focus(on: boolean): void;
  /** Every byte the app wrote to the terminal so far (escape sequences included). */
  output(): string;
  dead(): boolean;
  /** Lets a `held` start-up go on. */
  release(): Promise<void>;
}

export interface TuiHarness {
  readonly mock: MockProvider;
  /** Runs outrider in a fresh pane (120×40 unless told); does not wait. */
  launch(options?: LaunchOptions): Pane;
  /** Launches with the mock provider and waits until the app is ready for input. */
  start(options?: LaunchOptions): Promise<Pane>;
  /** The variables that point outrider at the mock provider. */
  providerVariables(): string[];
  /** A temporary folder removed after the test. */
  tempDir(prefix: string): string;
}

/**
 * The real binary in a real terminal: tmux runs `outrider` against the mock provider, one
 * private server (`-L`) per pane, keys go in with send-keys, the screen comes back with
 * capture-pane, and pipe-pane records the raw bytes. Registers its own hooks: panes, servers
 * and folders go after each test, the mock provider after the file.
 */
export function useTui(): TuiHarness {
  // One private tmux server per pane, named for it, so these tests never touch the user's own
  // sessions, and a server whose last session was just killed (it exits on its own) is never
  // reached by a new session while it dies ("server exited unexpectedly").
  const fileRun = `outrider-e2e-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  let mock: MockProvider | undefined;
  let counter = 0;
  const servers: string[] = [];
  /** Each pane's first process (the shell that runs the app), to find the app at the end. */
  const panePids: number[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    mock = await startMockProvider();
  });
  afterAll(async () => {
    await mock?.close();
  });
  afterEach(async () => {
    // The apps still running: the children of each pane's shell (env execs node in its place).
    const apps = panePids.splice(0).flatMap(childrenOf);
    for (const server of servers.splice(0)) spawnSync('tmux', ['-L', server, 'kill-server']);
    mock?.reset();
    // An app killed with its server goes on writing while it exits (a transcript line, a job's
    // record, the code cache of a run handed over from the headless bundle; its exit also waits
    // for what its commands left running to end): its folders go once it is gone.
    await until(() => apps.every(exited), { what: 'the apps to exit', timeoutMs: 30_000 });
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  });

  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  const launch = (options: LaunchOptions = {}): Pane => {
    const home = options.home ?? tempDir('outrider-home-');
    const project = options.project ?? tempDir('outrider-project-');
    const log = path.join(tempDir('outrider-log-'), 'pane.log');
    writeFileSync(log, '');
    writeFileSync(path.join(project, 'hello.txt'), 'hi from the file\n');
    for (const [file, content] of Object.entries(options.files ?? {})) writeFileSync(path.join(project, file), content);
    if (options.settings) writeFileSync(path.join(home, 'settings.json'), JSON.stringify(options.settings));
    const name = `tui-${counter++}`;
    const hold = options.held ? path.join(tempDir('outrider-hold-'), 'go') : undefined;
    if (hold) execFileSync('mkfifo', [hold]);
    const socket = `${fileRun}-${name}`;
    servers.push(socket);
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
    // `env -i` keeps the developer's own API keys out of the run.
    const command = [
      'env',
      '-i',
      `PATH=${options.path ?? process.env.PATH}`,
      'TERM=xterm-256color',
      `OUTRIDER_HOME=${home}`,
      ...(options.variables ?? []),
      ...(hold ? [`OUTRIDER_TEST_HOLD=${hold}`] : []),
      process.execPath,
      ...(hold ? ['--import', HOLD_START] : []),
      BIN,
      ...(options.args ?? []),
    ].join(' ');
    const width = String(options.width ?? 120);
    const height = String(options.height ?? 40);
    // The pane starts with a shell that waits for a line before running outrider, so the
    // byte log is attached before the app writes its first byte.
    tmux(
      'new-session',
      '-d',
      '-x',
      width,
      '-y',
      height,
      '-s',
      name,
      '-c',
      project,
      `read go; ${command}; echo "[exit status $?]"`,
    );
    // The app's pane by id: a second pane (focus tests) must not take its keys or its screen.
    const pane = tmux('display-message', '-p', '-t', name, '#{pane_id}').trim();
    panePids.push(Number(tmux('display-message', '-p', '-t', name, '#{pane_pid}').trim()));
    tmux('set-option', '-t', name, 'remain-on-exit', 'on');
    tmux('set-option', '-s', 'escape-time', '0');
    tmux('pipe-pane', '-t', pane, '-o', `cat >> '${log}'`);
    tmux('send-keys', '-t', pane, 'Enter');
    const capture = (opts: { history?: boolean } = {}) =>
      // -J joins lines the terminal wrapped, so long lines match as one.
      tmux('capture-pane', '-p', '-J', ...(opts.history ? ['-S', '-'] : []), '-t', pane);
    return {
      name,
      home,
      project,
      capture,
      screen(pattern, opts = {}) {
        return until(
          () => {
            const text = capture(opts);
            return pattern.test(text) && text;
          },
          { what: `${pattern} on the screen`, timeoutMs: opts.timeoutMs, intervalMs: 50, observe: () => capture(opts) },
        );
      },
      type(text) {
        tmux('send-keys', '-t', pane, '-l', text);
        tmux('send-keys', '-t', pane, 'Enter');
      },
      key(...keys) {
        tmux('send-keys', '-t', pane, ...keys);
      },
      resize(w, h) {
        tmux('resize-window', '-t', name, '-x', String(w), '-y', String(h));
      },
      focus(on) {
        // What a terminal sends when it gains or loses focus (a detached tmux session has no focus to change).
        tmux('send-keys', '-t', pane, '-H', '1b', '5b', on ? '49' : '4f');
      },
      paste(text) {
        tmux('set-buffer', '-b', `paste-${name}`, text);
        tmux('paste-buffer', '-p', '-d', '-b', `paste-${name}`, '-t', pane);
      },
      raw() {
        const tty = tmux('display-message', '-p', '-t', pane, '#{pane_tty}').trim();
        const modes = execFileSync('stty', ['-F', tty, '-a'], { encoding: 'utf8' });
        return /(^|\s)-icanon(\s|$)/.test(modes);
      },
      output: () => readFileSync(log, 'utf8'),
      dead: () => tmux('display-message', '-p', '-t', pane, '#{pane_dead}').trim() === '1',
      async release() {
        if (!hold) throw new Error('release() is for a pane launched with held: true');
        // Opening a FIFO to write without blocking fails (ENXIO) until its reader, the held
        // start-up, has it open; closing it ends the reader's read.
        const fd = await until(
          () => {
            try {
              return openSync(hold, constants.O_WRONLY | constants.O_NONBLOCK);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === 'ENXIO') return undefined;
              throw error;
            }
          },
          { what: 'the held start-up to wait on its FIFO', observe: () => capture() },
        );
        writeSync(fd, 'go');
        closeSync(fd);
      },
    };
  };

  const started = () => {
    if (!mock) throw new Error('the mock provider starts in beforeAll');
    return mock;
  };
  const providerVariables = () => [`ANTHROPIC_API_KEY=test`, `ANTHROPIC_BASE_URL=${started().anthropicBaseURL}`];
  return {
    get mock() {
      return started();
    },
    launch,
    providerVariables,
    tempDir,
    async start(options = {}) {
      const pane = launch({ ...options, variables: [...providerVariables(), ...(options.variables ?? [])] });
      await pane.screen(/\/help/);
      return pane;
    },
  };
}

/** A request a sub-agent made (its system prompt carries the role contract). */
export const isChild = (request: RecordedRequest) => request.raw.includes('You are a sub-agent started by another agent');

/** The last message of a recorded request, as JSON text. */
export const lastUserText = (request: RecordedRequest) => {
  const messages = request.body?.messages ?? [];
  return JSON.stringify(messages[messages.length - 1] ?? {});
};

/** The children of `pid` (Linux: /proc), none when it is gone. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
