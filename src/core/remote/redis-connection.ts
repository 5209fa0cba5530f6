/**
 * Connections to the queue's Redis. A session or worker opens them through here so that every
 * one reconnects by itself after an outage, waits (rather than fails) while Redis is away, never
 * prints (ioredis logs an error that has no listener), and says what went wrong without the
 * password. `checkReachable` is the start-up check: one attempt, a clear error.
 */
import { Redis } from 'ioredis';
import { type Timers, realTimers, unrefTimer } from '../platform/timers.js';
import { type RedisAddress, redactRedisText } from './redis-url.js';
import { RemoteQueueError } from './remote-errors.js';

/** Longest pause between two reconnection attempts. */
const MAX_RECONNECT_DELAY_MS = 1000;

/**
 * A connection that reconnects for ever and holds commands while it is down (BullMQ needs
 * `maxRetriesPerRequest: null` on every connection it blocks on). `onError` hears each
 * connection error with the password taken out.
 */
export function openRedis(address: RedisAddress, onError: (message: string) => void = () => undefined): Redis {
  const redis = new Redis({
    ...address.options,
    maxRetriesPerRequest: null,
    connectTimeout: 5000,
    retryStrategy: (attempt) => Math.min(50 * attempt, MAX_RECONNECT_DELAY_MS),
    lazyConnect: false,
  });
  redis.on('error', (error: Error) => onError(redactRedisText(error.message, address)));
  return redis;
}

/** Closes a connection, at once if it is not connected. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/** Tries the address once; throws RemoteQueueError saying what to do when Redis is not there or refuses. */
export async function checkReachable(address: RedisAddress, options: { timeoutMs?: number } = {}): Promise<void> {
  const probe = new Redis({
    ...address.options,
    lazyConnect: true,
    connectTimeout: options.timeoutMs ?? 5000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let lastError: Error | undefined;
  probe.on('error', (error: Error) => (lastError = error));
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    const why = redactRedisText((lastError ?? (error as Error)).message, address);
    throw new RemoteQueueError(unreachableMessage(address.description, why));
  } finally {
    probe.disconnect();
  }
}

function unreachableMessage(description: string, why: string): string {
  if (/NOAUTH|WRONGPASS|invalid password|invalid username/i.test(why)) {
    return `the queue at ${description} refused the credentials (${why}): put the right password in the URL (redis://:password@host:port)`;
  }
  return `cannot reach the queue at ${description} (${why}): start Redis there, or point --queue (or agents.queue in your settings) at a running one`;
}

/** What a connection watch reports. */
export interface ConnectionWatchEvents {
  /** The connection dropped; `why` has no password in it. */
  onLost?: (why: string) => void;
  /** It is back after a loss. */
  onBack?: () => void;
  /** It stayed down for longer than the bound. */
  onGiveUp?: (why: string) => void;
}

/**
 * Follows one connection through outages: says when it is lost and back, and gives up (once
 * per outage) when an outage outlasts `limitMs`. Its timer runs on the injected clock.
 */
export class ConnectionWatch {
  private lostAt: unknown;
  private lost = false;
  private lastWhy = 'the connection closed';
  private readonly listeners: [string, (...args: unknown[]) => void][];

  constructor(
    private readonly redis: Redis,
    private readonly address: RedisAddress,
    private readonly limitMs: number,
    private readonly events: ConnectionWatchEvents,
    private readonly timers: Timers = realTimers,
  ) {
    this.listeners = [
      ['error', (error) => (this.lastWhy = redactRedisText((error as Error).message, address))],
      ['close', () => this.down()],
      ['ready', () => this.up()],
    ];
    for (const [event, listener] of this.listeners) redis.on(event, listener);
  }

  /** True while the connection is down. */
  get isDown(): boolean {
    return this.lost;
  }

  private down(): void {
    if (this.lost) return;
    this.lost = true;
    this.events.onLost?.(`lost the queue at ${this.address.description} (${this.lastWhy})`);
    this.lostAt = this.timers.setTimeout(() => {
      this.lostAt = undefined;
      this.events.onGiveUp?.(
        `the queue at ${this.address.description} has been unreachable for ${Math.round(this.limitMs / 1000)} s (${this.lastWhy}); start Redis again, then resume the session`,
      );
    }, this.limitMs);
    unrefTimer(this.lostAt);
  }

  private up(): void {
    if (!this.lost) return;
    this.lost = false;
    if (this.lostAt !== undefined) this.timers.clearTimeout(this.lostAt);
    this.lostAt = undefined;
    this.events.onBack?.();
  }

  stop(): void {
    if (this.lostAt !== undefined) this.timers.clearTimeout(this.lostAt);
    for (const [event, listener] of this.listeners) this.redis.off(event, listener);
  }
}

/** Waits for `work` at most `ms` (it goes on in the background after that): a close must not hang on a Redis that is gone. */
export async function settleWithin(work: Promise<unknown>, ms: number, timers: Timers = realTimers): Promise<void> {
  let timer: unknown;
  await Promise.race([
    work.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = timers.setTimeout(resolve, ms);
      unrefTimer(timer);
    }),
  ]);
  timers.clearTimeout(timer);
}
