import { randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { CommandPlan } from '../sandbox/plan.js';
import { spawnPlan } from '../sandbox/spawn.js';
import type { Timers } from '../platform/timers.js';
import { OWNER_MARKER, ownerMark, terminateGroup, terminateMarked } from '../platform/process-group.js';

/** How long a finished command's pipes may stay open (held by a background child) before its group is stopped. */
const EXIT_DRAIN_MS = 500;
/** Between SIGTERM and SIGKILL for what a stop reaches. */
const KILL_GRACE_MS = 1_000;
/**
 * After a stop, how long the output may stay open before the process is given up on: a
 * process that left the group and dropped its marker cannot be found, and must not hang anyone.
 */
const GIVE_UP_MS = 2_000;
/**
 * Every command's environment carries `OUTRIDER_RUN=<id>`, unique per command: its descendants
 * inherit it, so a stop finds those that left the process group (setsid, daemons) in /proc. It
 * also carries OWNER_MARKER, by which outrider's exit finds whatever any command left running.
 */
export const RUN_MARKER = 'OUTRIDER_RUN';

/** Why a command was stopped: its timeout, an abort or stop, or pipes held open after bash exited. */
export type ShellStopReason = 'timeout' | 'abort' | 'background';

/** How a command ended. */
export interface ShellExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when a stop came while something still ran (a stop as it finished by itself does not count). */
  stopped?: ShellStopReason;
  /** Something was still running when the stop came. */
  reached: boolean;
  /** The output stayed open after a stop, and reading it was given up. */
  gaveUp: boolean;
  /** The command could not be started at all. */
  spawnError?: string;
}

/** The most a command's stdin may hold that it has not read yet: past it, a write is refused. */
export const SHELL_INPUT_CAP = 1024 * 1024;

/** What a write to a command's stdin did. */
export type ShellWrite =
  /** The process has it (in its pipe). */
  | { kind: 'written' }
  /** Accepted; `bytes` wait for the process to read them (its pipe is full). */
  | { kind: 'pending'; bytes: number }
  /** Nothing written: it has no stdin (started without one), closed it, exited, or has too much unread. */
  | { kind: 'refused'; reason: 'no-stdin' | 'closed' | 'exited' }
  | { kind: 'refused'; reason: 'full'; pending: number; bytes: number };

/**
 * One running command: its output as it comes, its end, and a stop that reaches its whole
 * process group (and the strays that left it). A foreground bash call reads it, and can hand
 * it on to a background shell job, which reads it from then on.
 */
export interface ShellHandle {
  /** Every chunk of stdout and stderr, interleaved, from the moment of subscribing. */
  onOutput(listener: (chunk: string) => void): void;
  offOutput(listener: (chunk: string) => void): void;
  /** Resolves once, when the command and its pipes are done (or given up on). */
  readonly ended: Promise<ShellExit>;
  /** Signals the group and the marked strays; the first reason wins. */
  stop(reason: ShellStopReason): void;
  /** Writes to the command's stdin, without waiting for it to read; never throws (a closed pipe is a refusal). */
  write(text: string): ShellWrite;
}

/** Starts a planned command (`sandbox/plan.ts`) as a ShellHandle. */
export function spawnShell(
  plan: Exclude<CommandPlan, { kind: 'refused' }>,
  /** `input`: keep a pipe to its stdin for `write` (a background shell); else its stdin is closed. */
  options: { cwd: string; env: NodeJS.ProcessEnv; timers: Timers; input?: boolean },
): ShellHandle {
  const { timers } = options;
  const runId = randomBytes(8).toString('hex');
  const child = spawnPlan(plan, {
    cwd: options.cwd,
    env: { ...options.env, [RUN_MARKER]: runId, [OWNER_MARKER]: ownerMark() },
    stdin: options.input ? 'pipe' : 'ignore',
  });
  const input = shellInput(child.stdin ?? undefined);
  const listeners = new Set<(chunk: string) => void>();
  let stopping: ShellStopReason | undefined;
  let reached = false;
  let gaveUp = false;
  let settled = false;
  let exit: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };
  const pending = new Set<unknown>();
  const after = (ms: number, fn: () => void): void => {
    const handle = timers.setTimeout(() => {
      pending.delete(handle);
      fn();
    }, ms);
    pending.add(handle);
  };
  let resolveEnded: (exit: ShellExit) => void = () => {};
  const ended = new Promise<ShellExit>((resolve) => {
    resolveEnded = resolve;
  });
  const finish = (result: ShellExit): void => {
    if (settled) return;
    settled = true;
    for (const handle of pending) timers.clearTimeout(handle);
    pending.clear();
    resolveEnded(result);
  };
  const outcome = (code: number | null, signal: NodeJS.Signals | null): ShellExit => ({
    code,
    signal,
    // A stop that found nothing running and did not have to give up came as the command finished by itself.
    ...(stopping && (reached || gaveUp) ? { stopped: stopping } : {}),
    reached,
    gaveUp,
  });

  const stop = (reason: ShellStopReason): void => {
    if (stopping || settled) return;
    stopping = reason;
    // Both hold outrider open until their SIGKILL is sent: what ignores SIGTERM cannot outlive it.
    const group = child.pid !== undefined && terminateGroup(child.pid, KILL_GRACE_MS, timers).reached;
    const strays = terminateMarked(RUN_MARKER, runId, KILL_GRACE_MS, timers).reached;
    reached = group || strays;
    after(GIVE_UP_MS, giveUp);
  };
  // Stop reading: whatever still holds the pipes could not be stopped, and nobody may wait for ever.
  const giveUp = (): void => {
    gaveUp = true;
    child.stdin?.destroy();
    child.stdout.destroy();
    child.stderr.destroy();
    child.unref();
    finish(outcome(exit.code, exit.signal));
  };

  const onData = (chunk: string): void => {
    for (const listener of listeners) listener(chunk);
  };
  child.stdout.setEncoding('utf8').on('data', onData);
  child.stderr.setEncoding('utf8').on('data', onData);
  child.on('error', (error) => {
    if (child.pid !== undefined) terminateGroup(child.pid, KILL_GRACE_MS, timers);
    finish({ ...outcome(null, null), spawnError: error.message });
  });
  // A background child (`server &`) keeps the pipes open after bash exits; it is stopped rather
  // than left to hold the output open unseen.
  child.on('exit', (code, signal) => {
    exit = { code, signal };
    input.exited();
    after(EXIT_DRAIN_MS, () => stop('background'));
  });
  child.on('close', (code, signal) => finish(outcome(code, signal)));

  return {
    onOutput: (listener) => listeners.add(listener),
    offOutput: (listener) => listeners.delete(listener),
    ended,
    stop,
    write: input.write,
  };
}

/**
 * The writing end of a command's stdin. A process that closed it (EPIPE) or exited makes a
 * write a refusal, never an error event nobody listens to (which would end outrider).
 */
function shellInput(stdin: Writable | undefined): { write: (text: string) => ShellWrite; exited: () => void } {
  let closed = false;
  let gone = false;
  stdin?.on('error', () => {
    closed = true;
  });
  const isClosed = () => closed || !stdin || stdin.destroyed || stdin.writableEnded || stdin.errored !== null;
  return {
    exited: () => {
      gone = true;
    },
    write: (text) => {
      if (!stdin) return { kind: 'refused', reason: 'no-stdin' };
      if (gone) return { kind: 'refused', reason: 'exited' };
      if (isClosed()) return { kind: 'refused', reason: 'closed' };
      const bytes = Buffer.byteLength(text);
      const pending = stdin.writableLength;
      if (pending + bytes > SHELL_INPUT_CAP) return { kind: 'refused', reason: 'full', pending, bytes };
      stdin.write(text);
      // A pipe whose reader is gone fails the write at once (EPIPE).
      if (isClosed()) return { kind: 'refused', reason: 'closed' };
      const left = stdin.writableLength;
      return left > 0 ? { kind: 'pending', bytes: left } : { kind: 'written' };
    },
  };
}
