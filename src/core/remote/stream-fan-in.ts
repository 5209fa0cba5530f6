/**
 * Many streams read through one blocking connection: a session follows the `out` stream of
 * every job it has on the queue, a worker the `control` stream of every job it runs. One XREAD
 * waits on all of them at once, at most `blockMs` (≤ 1 s) at a time; following a new stream
 * unblocks the wait at once (CLIENT UNBLOCK from a second connection), so nothing new waits
 * for the next round. Each stream's handler gets its entries in order, each entry once.
 */
import type { Redis } from 'ioredis';
import { type Timers, realTimers } from '../platform/timers.js';
import type { RawEntry } from './channels.js';

/** Handles one stream's new entries; the reader waits for it before reading that stream again. */
export type EntriesHandler = (entries: RawEntry[]) => void | Promise<void>;

interface Followed {
  cursor: string;
  handle: EntriesHandler;
}

/** Pause after a failed read before the next (the connection reconnects meanwhile). */
const RETRY_MS = 200;

export class StreamFanIn {
  private readonly followed = new Map<string, Followed>();
  private closed = false;
  private blockedClient: number | undefined;
  private wake: (() => void) | undefined;
  private readonly loop: Promise<void>;

  /**
   * `blocking` is this reader's own connection (it spends its time in XREAD; `close` closes
   * it); `control` any other connection, used to cut a wait short.
   */
  constructor(
    private readonly blocking: Redis,
    private readonly control: Redis,
    private readonly options: { blockMs?: number; timers?: Timers; onError?: (message: string) => void } = {},
  ) {
    // After a reconnection the connection has a new client id.
    blocking.on('ready', () => (this.blockedClient = undefined));
    this.loop = this.run();
  }

  /** Reads `key` from after `cursor` ('0': from its first entry) until `unfollow`. */
  follow(key: string, cursor: string, handle: EntriesHandler): void {
    this.followed.set(key, { cursor, handle });
    this.interrupt();
  }

  unfollow(key: string): void {
    this.followed.delete(key);
  }

  /** The last id handed to `key`'s handler. */
  cursorOf(key: string): string | undefined {
    return this.followed.get(key)?.cursor;
  }

  /** Stops reading and closes the blocking connection (a read waiting on a lost connection ends with it). */
  async close(): Promise<void> {
    this.closed = true;
    this.interrupt();
    this.blocking.disconnect();
    await this.loop;
  }

  private interrupt(): void {
    this.wake?.();
    const id = this.blockedClient;
    if (id !== undefined) void this.control.client('UNBLOCK', id).catch(() => undefined);
  }

  private async run(): Promise<void> {
    const timers = this.options.timers ?? realTimers;
    const blockMs = Math.min(this.options.blockMs ?? 1000, 1000);
    while (!this.closed) {
      if (this.followed.size === 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      const keys = [...this.followed.keys()];
      const cursors = keys.map((key) => this.followed.get(key)!.cursor);
      let reply: [string, RawEntry[]][] | null;
      try {
        this.blockedClient ??= (await this.blocking.client('ID')) as number;
        reply = (await this.blocking.xread('COUNT', 500, 'BLOCK', blockMs, 'STREAMS', ...keys, ...cursors)) as
          [string, RawEntry[]][] | null;
      } catch (error) {
        this.blockedClient = undefined;
        if (this.closed) break;
        this.options.onError?.((error as Error).message);
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          timers.setTimeout(resolve, RETRY_MS);
        });
        this.wake = undefined;
        continue;
      }
      for (const [key, entries] of reply ?? []) {
        const followed = this.followed.get(key);
        if (!followed || entries.length === 0) continue;
        followed.cursor = entries.at(-1)![0];
        try {
          await followed.handle(entries);
        } catch (error) {
          this.options.onError?.((error as Error).message);
        }
      }
    }
  }
}
