import { HeadTailBuffer } from '../tools/head-tail-buffer.js';
import { lineSplitter } from '../tools/output-lines.js';
import type { ShellHandle } from '../tools/shell-process.js';

/** Output kept between two polls: head and tail beyond it (read_result pages what the poll returns). */
export const SHELL_UNREAD_CAP = 1_000_000;

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
