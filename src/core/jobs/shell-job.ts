import { formatDuration } from '../platform/text.js';
import type { ShellExit, ShellHandle } from '../tools/shell-process.js';
import type { Timers } from '../platform/timers.js';
import { emptyUsage } from '../providers/types.js';
import { type JobRecord, newRecord } from './job-record.js';
import { ShellOutput } from './shell-output.js';
import type { Job, JobState, PollResult } from './job-types.js';

/** The longest a poll of a running shell waits for output or the end. */
export const SHELL_POLL_WAIT_MS = 30_000;

/** Waits until the shell prints, ends, the wait passes, or `signal` aborts; says which came first. */
export async function waitForShell(
  job: { finished: Promise<void>; output: ShellOutput },
  options: { timers: Timers; timeoutMs: number; signal: AbortSignal },
): Promise<'output' | 'ended' | 'timeout' | 'interrupted'> {
  const { timers, signal } = options;
  const next = job.output.nextOutput();
  let handle: unknown;
  let onAbort = () => {};
  try {
    return await Promise.race([
      job.finished.then(() => 'ended' as const),
      next.promise.then(() => 'output' as const),
      new Promise<'timeout'>((resolve) => {
        handle = timers.setTimeout(() => resolve('timeout'), options.timeoutMs);
      }),
      new Promise<'interrupted'>((resolve) => {
        onAbort = () => resolve('interrupted');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    next.cancel();
    timers.clearTimeout(handle);
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The record of a new shell job `sh-N`, running from now: its output kept for polls, its lines
 * told to `onLine` while it runs, and `onExit` called when it exits by itself (not when stopped).
 */
export function newShellJob(
  handle: ShellHandle,
  spec: {
    command: string;
    number: number;
    owner?: { id: string; depth: number };
    now: () => number;
    /** How long it already ran before it became a job. */
    ranForMs?: number;
    onLine: (line: string) => void;
    /** Applied to each line before it is shown or kept as the last line. */
    scrub?: (text: string) => string;
    onExit: () => void;
  },
): JobRecord {
  const startedAt = spec.now() - (spec.ranForMs ?? 0);
  const job = newRecord({
    id: `sh-${spec.number}`,
    number: spec.number,
    kind: 'shell',
    state: 'running',
    definition: 'shell',
    mode: 'typed',
    task: spec.command,
    createdAt: startedAt,
    startedAt,
    turns: 0,
    toolCalls: 0,
    contextTokens: 0,
    usage: emptyUsage(),
    ...(spec.owner ? { owner: spec.owner.id, depth: spec.owner.depth + 1 } : {}),
  });
  job.shell = new ShellOutput(handle, (raw) => {
    const line = spec.scrub ? spec.scrub(raw) : raw;
    job.lastLine = line;
    if (job.state === 'running') spec.onLine(line);
  });
  job.finished = new Promise<void>((resolve) => {
    job.markFinished = resolve;
  });
  job.settled = handle.ended;
  void handle.ended.then((exit) => {
    // A stop decided its state already.
    if (job.state !== 'running') return;
    const end = shellEnd(exit);
    job.state = end.state;
    job.exitCode = end.exitCode;
    job.error = end.error;
    job.result = job.lastLine ?? '';
    job.endedAt = spec.now();
    spec.onExit();
  });
  return job;
}

/** The state and error a shell ends in: exit 0 is done, anything else a failure naming it. */
export function shellEnd(exit: ShellExit): {
  state: Extract<JobState, 'done' | 'error'>;
  error?: string;
  exitCode: number | null;
} {
  if (exit.spawnError) return { state: 'error', error: `could not be started: ${exit.spawnError}`, exitCode: null };
  if (exit.code === 0) return { state: 'done', exitCode: 0 };
  if (exit.code !== null) return { state: 'error', error: `exit code ${exit.code}`, exitCode: exit.code };
  return { state: 'error', error: `killed by ${exit.signal ?? 'a signal'}`, exitCode: null };
}

/** agent_stop's error for a shell that is no longer running. */
export function shellAlreadyEnded(job: Job): string {
  if (job.state === 'aborted') return `shell ${job.id} was already stopped`;
  return `shell ${job.id} already exited (${job.state === 'done' ? 'exit code 0' : (job.error ?? 'failed')})`;
}

/** The tool result of a shell's poll: its new output, then where it stands. */
export function describeShellPoll(result: PollResult, now: number): { content: string; isError: boolean } {
  const { job } = result;
  if (result.kind === 'interrupted') return { content: 'poll interrupted', isError: true };
  const output = (result.output ?? '').replace(/\n+$/, '') || '(no new output)';
  return { content: `${output}\n\n[${shellStatus(job, result.kind === 'ended', now)}]`, isError: false };
}

function shellStatus(job: Job, ended: boolean, now: number): string {
  if (!ended) {
    return `${job.id} still running after ${formatDuration(now - (job.startedAt ?? job.createdAt))}; poll again for what it prints next`;
  }
  if (job.state === 'aborted') return `${job.id} was stopped`;
  if (job.state === 'done') return `${job.id} exited with code 0`;
  return `${job.id} ${job.error ?? 'failed'}`;
}
