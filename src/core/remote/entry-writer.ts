/**
 * A worker's writes to one job's `out` stream, in the order they were made. A child streams
 * many small events (every text delta); they are written as they come, and whatever piles up
 * while one write is on its way goes in the next as one MULTI, so a slow link delays the row
 * a little and never reorders or drops an entry. While Redis is away the writes wait (the
 * connection holds them) and go out when it is back.
 */
import type { Redis } from 'ioredis';
import { CHANNEL_TTL_SECONDS, type OutEntry } from './channels.js';

/** Entries per MULTI at most. */
const BATCH = 200;

export class EntryWriter {
  private pending: OutEntry[] = [];
  private flushing: Promise<void> | undefined;
  private failure: Error | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly onError: (message: string) => void = () => undefined,
  ) {}

  /** Queues an entry; it is written after every entry queued before it. */
  write(entry: OutEntry): void {
    this.pending.push(entry);
    this.flushing ??= this.flush();
  }

  /** Resolves once everything queued so far is written (or has failed: see `failed`). */
  async drained(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** The first write that failed, if one did (its entries are lost; later ones still go). */
  get failed(): Error | undefined {
    return this.failure;
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, BATCH);
        const multi = this.redis.multi();
        for (const entry of batch) multi.xadd(this.key, '*', 'e', JSON.stringify(entry));
        multi.expire(this.key, CHANNEL_TTL_SECONDS);
        try {
          const results = await multi.exec();
          const error = results?.find(([e]) => e)?.[0];
          if (error) throw error;
        } catch (error) {
          this.failure ??= error as Error;
          this.onError(`could not write ${batch.length} entries of ${this.key}: ${(error as Error).message}`);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }
}
