/** Spawning a measured process: wall time from outside, CPU and peak RSS from the probe inside. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '..');
export const BIN = path.join(REPO, 'bin/outrider.js');
const PROBE = path.join(REPO, 'bench/lib/probe.mjs');
// Made on first use: a worker process (bench/worker.ts) loads this module but measures nothing.
let probeDir: string | undefined;
let probeSerial = 0;

/** One measured run of a process. */
export interface Run {
  code: number | null;
  /** From just before spawn to the process's exit, measured by the bench. */
  wallMs: number;
  /** Date.now() just before spawn, to compare with the mock provider's receive times. */
  spawnedAt: number;
  /** User + system CPU of the process (probe only). */
  cpuMs: number;
  /** Peak resident set size (probe only). */
  maxRssMb: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** The node binary to run it with. */
  node: string;
  args: string[];
  cwd?: string;
  /** The whole environment of the child (PATH is added). */
  env?: Record<string, string>;
  /** Preload the probe (CPU, RSS). Off for start-up figures, where loading it would be measured too. */
  probe?: boolean;
  /** Called with the child right after spawn (IPC figures send it messages). */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
  /** Open an IPC channel (the probe answers 'cpu'). */
  ipc?: boolean;
  /** A deadline for a broken run; the process is killed and the run fails. */
  timeoutMs?: number;
}

export function runProcess(options: RunOptions): Promise<Run> {
  const probeFile = options.probe
    ? path.join(
        (probeDir ??= mkdtempSync(path.join(os.tmpdir(), 'outrider-bench-probe-'))),
        `${process.pid}-${(probeSerial += 1)}.json`,
      )
    : undefined;
  const args = options.probe ? ['--import', PROBE, ...options.args] : options.args;
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...options.env };
  if (probeFile) env.BENCH_PROBE_FILE = probeFile;
  return new Promise((resolve, reject) => {
    const spawnedAt = Date.now();
    const start = performance.now();
    const child = spawn(options.node, args, {
      cwd: options.cwd,
      env,
      stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    });
    let wallMs = 0;
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('exit', () => (wallMs = performance.now() - start));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let cpuMs = Number.NaN;
      let maxRssMb = Number.NaN;
      if (probeFile) {
        try {
          ({ cpuMs, maxRssMb } = JSON.parse(readFileSync(probeFile, 'utf8')));
          rmSync(probeFile, { force: true });
        } catch {
          return reject(new Error(`${options.args.join(' ')}: the probe wrote nothing (exit ${code})\n${stderr}`));
        }
      }
      resolve({ code, wallMs, spawnedAt, cpuMs, maxRssMb, stdout, stderr });
    });
    options.onSpawn?.(child);
  });
}

/** Runs a process and fails loudly unless it exited 0. */
export async function runOk(options: RunOptions, what: string): Promise<Run> {
  const run = await runProcess(options);
  if (run.code !== 0) {
    throw new Error(`${what} exited ${run.code}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-2000)}`);
  }
  return run;
}

/** Asks a process started with `ipc` and the probe for its CPU time so far. */
export function askCpu(child: import('node:child_process').ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      child.off('message', onMessage);
      resolve((message as { cpuMs: number }).cpuMs);
    };
    child.on('message', onMessage);
    if (!child.send('cpu')) reject(new Error('the measured process has no IPC channel'));
  });
}

export function cleanupProbes(): void {
  if (probeDir) rmSync(probeDir, { recursive: true, force: true });
  probeDir = undefined;
}
