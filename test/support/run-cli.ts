import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '../..');
export const BIN = path.join(REPO, 'bin/outrider.js');
/** The ES module bundle with any arguments, -p too, which the launcher runs from the CommonJS one (run-esm-bundle.mjs). */
export const ESM_RUNNER = path.join(REPO, 'test/support/run-esm-bundle.mjs');
export const TEST_KEY = 'sk-ant-test-0123456789abcdef';

/** How a run ended. No duration: tests do not assert on wall time (speed lives in `npm run bench`). */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh project folder and state folder for one run of the real binary. */
export function tempDirs(): { project: string; home: string } {
  const base = mkdtempSync(path.join(os.tmpdir(), 'outrider-e2e-'));
  const project = path.join(base, 'project');
  const home = path.join(base, 'home');
  return { project, home };
}

/**
 * Runs the built binary with a clean environment (no real keys leak in). `timeoutMs` is
 * a deadline for a broken run (the process is killed and the test fails with its output),
 * never a wait: it can be generous.
 */
export function runCli(
  args: string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    stdin?: string;
    timeoutMs?: number;
    /** The script node runs: the launcher unless told. */
    entry?: string;
  },
): Promise<CliRun> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.entry ?? BIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: options.env.OUTRIDER_HOME ?? os.tmpdir(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`outrider ${args.join(' ')} did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A binary that refuses its input exits before reading it all: the write then fails with EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
  });
}

/** A running binary: output so far, and its exit. */
export interface LiveCli {
  pid: number;
  stdout(): string;
  stderr(): string;
  signal(name: NodeJS.Signals): void;
  /** Resolves when the process has exited; rejects (and kills it) after `timeoutMs`. */
  exited(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the built binary with a clean environment and leaves it running; for tests that signal it. */
export function startCli(args: string[], options: { cwd: string; env: Record<string, string>; stdin?: string }): LiveCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: options.env.OUTRIDER_HOME ?? os.tmpdir(), ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(options.stdin ?? '');
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    pid: child.pid!,
    stdout: () => stdout,
    stderr: () => stderr,
    signal: (name) => void child.kill(name),
    exited: (timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(
            new Error(`outrider ${args.join(' ')} did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
          );
        }, timeoutMs);
        void exit.then((result) => {
          clearTimeout(timer);
          resolve(result);
        });
      }),
  };
}
