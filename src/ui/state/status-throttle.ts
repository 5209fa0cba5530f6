import type { Clock } from '../clock.js';

export interface BatchThrottleOptions<T> {
  clock: Clock;
  /** A batch starts at most this often (ms). */
  intervalMs: number;
  /** Keys one batch runs at most; the others wait for a later one. */
  maxBatch: number;
  /** Runs one key's newest input; a batch ends when all of its runs have settled. */
  run: (key: string, input: T) => Promise<void>;
}

/**
 * Runs keyed requests in batches, one batch at a time and at most one every `intervalMs`: the
 * newest input of a key replaces one not yet run, and a batch under way (a slow command) makes
 * the next wait for it instead of piling runs up. So a key never runs twice at once, nor twice
 * within the interval, and however many keys ask, at most `maxBatch` run per batch: those that
 * ran longest ago first.
 */
export class BatchThrottle<T> {
  private readonly pending = new Map<string, T>();
  /** When each key last ran, to let the least recently run go first. */
  private readonly lastRun = new Map<string, number>();
  private running = false;
  private lastBatchAt: number | undefined;
  private timer: unknown;
  private disposed = false;

  constructor(private readonly options: BatchThrottleOptions<T>) {}

  /** Asks for a run of each key with its input (the newest wins). */
  request(requests: Iterable<readonly [string, T]>): void {
    if (this.disposed) return;
    for (const [key, input] of requests) this.pending.set(key, input);
    this.pump();
  }

  /** Forgets every key not in `keys`: its pending request is dropped (what runs now finishes). */
  retain(keys: ReadonlySet<string>): void {
    for (const key of [...this.pending.keys()]) if (!keys.has(key)) this.pending.delete(key);
    for (const key of [...this.lastRun.keys()]) if (!keys.has(key)) this.lastRun.delete(key);
  }

  /** True while a batch runs or a request waits. */
  busy(): boolean {
    return this.running || this.pending.size > 0;
  }

  dispose(): void {
    this.disposed = true;
    this.pending.clear();
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private pump(): void {
    if (this.disposed || this.running || this.pending.size === 0 || this.timer !== undefined) return;
    const { clock, intervalMs } = this.options;
    const wait = this.lastBatchAt === undefined ? 0 : this.lastBatchAt + intervalMs - clock.now();
    if (wait > 0) {
      this.timer = clock.setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, wait);
      return;
    }
    this.startBatch();
  }

  private startBatch(): void {
    const now = this.options.clock.now();
    const order = (key: string) => this.lastRun.get(key) ?? Number.NEGATIVE_INFINITY;
    const keys = [...this.pending.keys()].sort((a, b) => order(a) - order(b)).slice(0, Math.max(1, this.options.maxBatch));
    const runs = keys.map((key) => {
      const input = this.pending.get(key) as T;
      this.pending.delete(key);
      this.lastRun.set(key, now);
      try {
        return this.options.run(key, input);
      } catch {
        return Promise.resolve();
      }
    });
    this.running = true;
    this.lastBatchAt = now;
    void Promise.allSettled(runs).then(() => {
      this.running = false;
      this.pump();
    });
  }
}
