import { oneLine, safeText, type StatusCommand } from '../../core/index.js';
import type { Clock } from '../clock.js';
import { BatchThrottle } from './status-throttle.js';

/** A status line runs at most this often (Claude Code's rate). */
export const STATUS_INTERVAL_MS = 300;

export interface StatusLinesOptions {
  command: StatusCommand;
  clock: Clock;
  /** What the failure message calls it: `status line (statusLine)`. */
  name: string;
  /** Keys run together at most: 1 for the session's line; a few for the job rows. */
  maxBatch?: number;
  intervalMs?: number;
  /** Told the first time the command fails, in words; later failures are not told. */
  onFailure: (text: string) => void;
}

/**
 * The lines one status command printed, by key (`session`, or a job id): requests go through
 * a batch throttle (status-throttle.ts), each run's line replaces the key's, a failure clears
 * it and is told once. Closing it stops what runs.
 */
export class StatusLines {
  private lines: ReadonlyMap<string, string> = new Map();
  private readonly listeners = new Set<() => void>();
  private readonly throttle: BatchThrottle<unknown>;
  private readonly stop = new AbortController();
  private failed = false;
  private kept: ReadonlySet<string> | undefined;

  constructor(private readonly options: StatusLinesOptions) {
    this.throttle = new BatchThrottle({
      clock: options.clock,
      intervalMs: options.intervalMs ?? STATUS_INTERVAL_MS,
      maxBatch: options.maxBatch ?? 1,
      run: (key, input) => this.run(key, input),
    });
  }

  readonly snapshot = (): ReadonlyMap<string, string> => this.lines;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Asks for each key's line with this input (JSON on the command's stdin). */
  request(requests: Iterable<readonly [string, unknown]>): void {
    this.throttle.request(requests);
  }

  /** Only these keys are wanted now (the rows on screen): the others' requests and lines go. */
  retain(keys: ReadonlySet<string>): void {
    this.kept = keys;
    this.throttle.retain(keys);
    if ([...this.lines.keys()].some((key) => !keys.has(key))) {
      this.set(new Map([...this.lines].filter(([key]) => keys.has(key))));
    }
  }

  busy(): boolean {
    return this.throttle.busy();
  }

  close(): void {
    this.throttle.dispose();
    this.stop.abort();
    this.listeners.clear();
  }

  private async run(key: string, input: unknown): Promise<void> {
    const outcome = await this.options.command.run(input, this.stop.signal);
    if (this.stop.signal.aborted || outcome.kind === 'aborted') return;
    // A row that left the screen while its command ran gets no line.
    if (this.kept && !this.kept.has(key)) return;
    if (outcome.kind === 'line') {
      if (this.lines.get(key) !== outcome.line) this.set(new Map(this.lines).set(key, outcome.line));
      return;
    }
    if (this.lines.has(key)) this.set(new Map([...this.lines].filter(([k]) => k !== key)));
    if (this.failed) return;
    this.failed = true;
    const command = safeText(oneLine(this.options.command.command, 60));
    this.options.onFailure(
      `${this.options.name}: \`${command}\` ${outcome.reason}. It runs again as things change; further failures are not shown.`,
    );
  }

  private set(lines: ReadonlyMap<string, string>): void {
    this.lines = lines;
    for (const listener of this.listeners) listener();
  }
}
