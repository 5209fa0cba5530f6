/**
 * The two channels of one job, each a Redis stream (queue-names.ts `channelKeys`):
 * - `out`, worker → session: who took the job, every event of the child's loop, every message
 *   of its history, and its end (outcome, usage, branch).
 * - `control`, session → worker: stop, and messages sent to the running job.
 *
 * Why streams rather than BullMQ's job progress or pub/sub: a stream keeps every entry in
 * order with its own id, so a session that went away (quit, crashed, lost Redis for a while)
 * reads the whole job again from the first entry, or goes on after the last id it saw, and
 * misses nothing and reads nothing twice; a blocking XREAD wakes at once when an entry lands.
 * Job progress keeps only the last value, and pub/sub drops whatever nobody was listening for.
 * Both streams expire some days after their last write, so Redis does not fill up.
 */
import type { Redis } from 'ioredis';
import * as z from 'zod';
import type { LoopEvent } from '../loop/events.js';
import type { Message, Usage } from '../providers/types.js';

/** How long a job's streams are kept after their last entry. */
export const CHANNEL_TTL_SECONDS = 7 * 24 * 3600;
/** Entries kept per stream at most (approximately): a runaway job cannot fill Redis. */
const MAX_ENTRIES = 200_000;

/** The branch a worker pushed with a job's changes. */
export interface RemoteBranch {
  name: string;
  commit: string;
  files: string[];
  insertions: number;
  deletions: number;
}

/** How the child's run ended, as the worker reports it; the history went before as `message` entries. */
export interface RemoteEnd {
  status: 'done' | 'error';
  text: string;
  error?: string;
}

/** One entry of a job's `out` stream. */
export type OutEntry =
  | { kind: 'started'; worker: string; attempt: number }
  | { kind: 'event'; event: LoopEvent }
  | { kind: 'message'; message: Message }
  | { kind: 'end'; worker: string; outcome: RemoteEnd; usage: Usage; branch?: RemoteBranch };

/** One entry of a job's `control` stream. */
export type ControlEntry = { kind: 'stop'; reason: string } | { kind: 'message'; message: Message };

const usageSchema = z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() });
const messageSchema = z.object({ role: z.enum(['user', 'assistant']), content: z.array(z.looseObject({ type: z.string() })) });

const outSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('started'), worker: z.string(), attempt: z.number() }),
  z.object({ kind: z.literal('event'), event: z.looseObject({ type: z.string() }) }),
  z.object({ kind: z.literal('message'), message: messageSchema }),
  z.object({
    kind: z.literal('end'),
    worker: z.string(),
    outcome: z.object({ status: z.enum(['done', 'error']), text: z.string(), error: z.string().optional() }),
    usage: usageSchema,
    branch: z
      .object({
        name: z.string(),
        commit: z.string(),
        files: z.array(z.string()),
        insertions: z.number(),
        deletions: z.number(),
      })
      .optional(),
  }),
]);

const controlSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('stop'), reason: z.string() }),
  z.object({ kind: z.literal('message'), message: messageSchema }),
]);

/** A stream entry's id and its fields as XREAD returns them. */
export type RawEntry = [id: string, fields: string[]];

/** Appends one entry and renews the stream's expiry. */
export async function appendEntry(redis: Redis, key: string, entry: OutEntry | ControlEntry): Promise<string> {
  const results = await redis
    .multi()
    .xadd(key, 'MAXLEN', '~', String(MAX_ENTRIES), '*', 'e', JSON.stringify(entry))
    .expire(key, CHANNEL_TTL_SECONDS)
    .exec();
  const failed = results?.find(([error]) => error);
  if (failed?.[0]) throw failed[0];
  const id = results?.[0]?.[1];
  return typeof id === 'string' ? id : '';
}

/** An `out` entry, or undefined for one that is not (a stream written by something else). */
export function parseOutEntry(raw: RawEntry): OutEntry | undefined {
  const parsed = outSchema.safeParse(decode(raw));
  return parsed.success ? (parsed.data as OutEntry) : undefined;
}

/** A `control` entry, or undefined. */
export function parseControlEntry(raw: RawEntry): ControlEntry | undefined {
  const parsed = controlSchema.safeParse(decode(raw));
  return parsed.success ? (parsed.data as ControlEntry) : undefined;
}

function decode([, fields]: RawEntry): unknown {
  const index = fields.indexOf('e');
  if (index < 0 || index % 2 !== 0) return undefined;
  try {
    return JSON.parse(fields[index + 1] ?? '');
  } catch {
    return undefined;
  }
}

/** Every entry after `after` ('0': from the start), without blocking. Exclusive ranges need Redis 6.2 or later. */
export async function readAll(redis: Redis, key: string, after = '0'): Promise<RawEntry[]> {
  const out: RawEntry[] = [];
  let start = after === '0' ? '-' : `(${after}`;
  for (;;) {
    const page = (await redis.xrange(key, start, '+', 'COUNT', 1000)) as RawEntry[];
    out.push(...page);
    if (page.length < 1000) return out;
    start = `(${page.at(-1)![0]}`;
  }
}
