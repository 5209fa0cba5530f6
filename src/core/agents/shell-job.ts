import { formatDuration } from '../text.js';
import { HeadTailBuffer } from '../tools/head-tail-buffer.js';
import { lineSplitter } from '../tools/output-lines.js';
import type { ShellExit, ShellHandle } from '../tools/shell-process.js';
import type { Timers } from '../timers.js';
import type { Job, JobState, PollResult } from './job-types.js';

/** Output kept between two polls: head and tail beyond it (read_result pages what the poll returns). */
export const SHELL_UNREAD_CAP = 1_000_000;
/** The longest a poll of a running shell waits for output or the end. */
export const SHELL_POLL_WAIT_MS = 30_000;

/** What the manager keeps of a background shell: its process, and what it printed since the last poll. */
export class ShellOutput {
  private unread = new HeadTailBuffer(SHELL_UNREAD_CAP);
  private hasUnread = false;
  private readonly waiters = new Set<() => void>();
  private readonly lines: ReturnType<typeof lineSplitter>;

  constructor(
    readonly handle: ShellHandle,
    onLine: (line: string) => void,
  ) {
    this.lines = lineSplitter(onLine);
    handle.onOutput((chunk) => this.append(chunk));
    void handle.ended.then(() => this.lines.flush());
  }

  /** One chunk of the shell's output: kept for the next poll, its lines for the row, waiting polls woken. */
  append(chunk: string): void {
    if (chunk === '') return;
    this.unread.append(chunk);
    this.hasUnread = true;
    this.lines.push(chunk);
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  pending(): boolean {
    return this.hasUnread;
  }

  /** What was printed since the last take, and forget it. */
  take(): string {
    const text = this.unread.text();
    this.unread = new HeadTailBuffer(SHELL_UNREAD_CAP);
    this.hasUnread = false;
    return text;
  }

  /** Resolves at the next output chunk. */
  nextOutput(): { promise: Promise<void>; cancel: () => void } {
    let wake = () => {};
    const promise = new Promise<void>((resolve) => {
      wake = resolve;
    });
    this.waiters.add(wake);
    return { promise, cancel: () => this.waiters.delete(wake) };
  }
}

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
