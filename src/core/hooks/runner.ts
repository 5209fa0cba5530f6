import { type ChildProcess, spawn } from 'node:child_process';
import { OWNER_MARKER, ownerMark } from '../platform/process-group.js';
import { type Timers, realTimers } from '../platform/timers.js';
import { HeadTailBuffer } from '../tools/head-tail-buffer.js';
import { terminateGroup } from '../platform/process-group.js';
import type { HookRun } from './decision.js';

/** A started hook process: its stdin takes the event, stdout and stderr are read. */
export type HookProcess = ChildProcess & {
  stdin: NonNullable<ChildProcess['stdin']>;
  stdout: NonNullable<ChildProcess['stdout']>;
  stderr: NonNullable<ChildProcess['stderr']>;
};

/** Starts one hook command (tests may pass their own). */
export type SpawnHook = (command: string, options: { cwd: string; env: NodeJS.ProcessEnv }) => HookProcess;

/**
 * `sh -c <command>`, as Claude Code runs hooks; detached, so it leads its own process group
 * and a stop reaches whatever it started.
 */
export const spawnHookCommand: SpawnHook = (command, options) =>
  spawn('/bin/sh', ['-c', command], {
    cwd: options.cwd,
    // Marked as outrider's, as commands are: what a hook leaves running ends with outrider.
    env: { ...options.env, [OWNER_MARKER]: ownerMark() },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as HookProcess;

/** Output kept from each of stdout and stderr (head and tail): a hook's answer is a line or a small JSON object. */
export const HOOK_OUTPUT_CAP = 64 * 1024;
/** Between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1_000;
/** After a stop, how long the pipes may stay open (held by something that left the group) before the run is given up. */
const GIVE_UP_MS = 2_000;
/** How long a hook that exited may leave its pipes open (a background child) before its group is stopped. */
const EXIT_DRAIN_MS = 500;

export interface RunHookOptions {
  command: string;
  /** The event, written to stdin as one JSON object. */
  input: unknown;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
  spawn?: SpawnHook;
  timers?: Timers;
}

/** Runs one hook to its end (or its timeout, or the abort); never throws. */
export function runHook(options: RunHookOptions): Promise<HookRun> {
  const { command, timers = realTimers } = options;
  if (options.signal.aborted) return Promise.resolve({ command, exitCode: null, stdout: '', stderr: '', aborted: true });
  return new Promise((resolve) => {
    let child: HookProcess;
    try {
      child = (options.spawn ?? spawnHookCommand)(command, { cwd: options.cwd, env: options.env });
    } catch (error) {
      resolve({ command, exitCode: null, stdout: '', stderr: '', spawnError: messageOf(error) });
      return;
    }
    const stdout = new HeadTailBuffer(HOOK_OUTPUT_CAP);
    const stderr = new HeadTailBuffer(HOOK_OUTPUT_CAP);
    let stopped: 'timeout' | 'abort' | 'drain' | undefined;
    let settled = false;
    let exitCode: number | null = null;
    const pending = new Set<unknown>();
    const after = (ms: number, fn: () => void) => {
      const handle = timers.setTimeout(() => {
        pending.delete(handle);
        fn();
      }, ms);
      pending.add(handle);
    };

    const finish = (run: Omit<HookRun, 'command' | 'stdout' | 'stderr'>) => {
      if (settled) return;
      settled = true;
      for (const handle of pending) timers.clearTimeout(handle);
      options.signal.removeEventListener('abort', onAbort);
      resolve({ command, stdout: stdout.text(), stderr: stderr.text(), ...run });
    };
    const outcome = () =>
      stopped === 'timeout'
        ? { exitCode: null, timedOut: { afterMs: options.timeoutMs } }
        : stopped === 'abort'
          ? { exitCode: null, aborted: true }
          : { exitCode };
    const stop = (reason: 'timeout' | 'abort' | 'drain') => {
      if (stopped || settled) return;
      stopped = reason;
      if (child.pid !== undefined) terminateGroup(child.pid, KILL_GRACE_MS, timers);
      after(GIVE_UP_MS, () => {
        child.stdout.destroy();
        child.stderr.destroy();
        child.unref();
        finish(outcome());
      });
    };
    const onAbort = () => stop('abort');
    options.signal.addEventListener('abort', onAbort, { once: true });
    after(options.timeoutMs, () => stop('timeout'));

    child.stdout.setEncoding('utf8').on('data', (chunk: string) => stdout.append(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.append(chunk));
    // A hook that never reads stdin (or exits first) closes it: that is not the hook failing.
    child.stdin.on('error', () => {});
    child.stdin.end(`${JSON.stringify(options.input)}\n`);

    child.on('error', (error) => {
      if (child.pid !== undefined) terminateGroup(child.pid, KILL_GRACE_MS, timers);
      finish({ exitCode: null, spawnError: error.message });
    });
    child.on('exit', (code) => {
      exitCode = code;
      // Its own answer is in; a background child still holding the pipes is stopped, not waited for.
      after(EXIT_DRAIN_MS, () => stop('drain'));
    });
    child.on('close', (code) => {
      if (exitCode === null) exitCode = code;
      finish(outcome());
    });
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
