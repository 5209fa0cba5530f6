import { realTimers, type Timers } from '../../core/index.js';

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
    private readonly timers: Timers = realTimers,
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
