/** Timer functions, injectable so tests can drive time. */
export interface BufferTimers {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

const realTimers: BufferTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Collects items and hands them over in one batch at most every `flushMs`, so a stream of
 * tokens or row updates costs one render per window instead of one per item.
 */
export class EventBuffer<T> {
  private items: T[] = [];
  private handle: unknown;
  private disposed = false;

  constructor(
    private readonly flushMs: number,
    private readonly onFlush: (items: T[]) => void,
    private readonly timers: BufferTimers = realTimers,
  ) {}

  push(item: T): void {
    if (this.disposed) return;
    this.items.push(item);
    if (this.handle === undefined) this.handle = this.timers.setTimeout(() => this.flush(), this.flushMs);
  }

  /** Hands over what is pending now (before something that must come after it). */
  flush(): void {
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
    if (this.items.length === 0) return;
    const items = this.items;
    this.items = [];
    this.onFlush(items);
  }

  dispose(): void {
    this.disposed = true;
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
    this.items = [];
  }
}
