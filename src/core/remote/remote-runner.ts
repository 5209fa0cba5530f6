/**
 * The session's side of the queue: a ChildRunner that sends each job to Redis instead of
 * running it here. It builds the payload (no secrets), adds it to the queue its labels route
 * to, follows the job's `out` stream (events, messages, the worker's name, the end), asks the
 * worker to stop when the request's signal aborts, and settles jobs whose worker went away.
 * `attach` follows a job sent earlier (a resumed session) from its first entry, or after the
 * last one it saw. One runner per session: its connections, queues and followers are its own.
 */
import { randomBytes } from 'node:crypto';
import { Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AgentDefinition } from '../agents/agent-definition.js';
import type { ChildOutcome, ChildRunRequest, ChildRunner } from '../jobs/job-types.js';
import type { PermissionMode } from '../permissions/types.js';
import { type Timers, realTimers, unrefTimer } from '../platform/timers.js';
import type { SandboxMode } from '../sandbox/plan.js';
import { buildPayload } from './build-payload.js';
import { CHANNEL_TTL_SECONDS, appendEntry, readAll } from './channels.js';
import { type FollowerHooks, JobFollower, type QueueVerdict } from './job-follower.js';
import type { RemoteCaps, RemoteWorkspace } from './payload.js';
import { channelKeys, normalizeLabels, queueForLabels, queuePrefix, remoteJobId } from './queue-names.js';
import { ConnectionWatch, checkReachable, closeRedis, openRedis, settleWithin } from './redis-connection.js';
import { type RedisAddress, parseRedisUrl } from './redis-url.js';
import { StreamFanIn } from './stream-fan-in.js';

/** Stall checks, lock times and state polls: BullMQ's defaults unless a test makes them short. */
export interface QueueTiming {
  /** How often BullMQ's stall check runs (the session runs one too, so a lone dead worker is noticed). */
  stalledIntervalMs?: number;
  /** How often the session asks the queue how a job it follows stands; default 2 s. */
  statePollMs?: number;
  /** After a stop, how long to wait for the worker's end before settling the job here; default 10 s. */
  stopGraceMs?: number;
  /** How long Redis may stay unreachable mid-run before the session's jobs fail; default 5 min. */
  outageLimitMs?: number;
}

export interface RemoteRunnerOptions extends FollowerHooks {
  redisUrl: string;
  /** `agents.queue.namespace`: the prefix every key of these jobs lives under. */
  namespace?: string;
  sessionId: string;
  /** The session's agent definitions: a job carries its whole definition. */
  definitions: () => Map<string, AgentDefinition>;
  /** The commit a job works on, already pushed to the shared git remote. */
  workspaceFor: (request: ChildRunRequest) => Promise<RemoteWorkspace>;
  /** The labels a job must run under (a definition's `runsOn`); none by default. */
  labelsFor?: (request: ChildRunRequest, definition: AgentDefinition) => readonly string[];
  /** A job's caps (its budget); its definition's limits fill the rest. */
  capsFor?: (request: ChildRunRequest) => RemoteCaps | undefined;
  /** What the session asks of the worker; the worker's own settings are the ceiling. */
  permissionMode?: PermissionMode;
  sandbox?: SandboxMode;
  /** Values that must never reach the queue (the session's keys and credentials): scrubbed from payloads. */
  secrets?: readonly string[];
  /** A job's queue id, as soon as it is on the queue: keep it to `attach` after a restart. */
  onEnqueued?: (jobId: string, remoteId: string) => void;
  /** The queue's connection: lost (jobs wait), back, or given up on (jobs failed). */
  onConnection?: (state: { kind: 'lost' | 'back' | 'gave-up'; text: string }) => void;
  /** `agents.queue.retries`: times a job whose worker was lost runs again; default 0. */
  retries?: number;
  timing?: QueueTiming;
  timers?: Timers;
}

/** A ChildRunner over the queue, with what a session needs besides running a job. */
export type RemoteChildRunner = ChildRunner & {
  /** Follows a job sent earlier by id; `after` skips the entries up to that stream id. */
  attach(remoteId: string, request: ChildRunRequest, options?: { after?: string }): Promise<ChildOutcome>;
  /** Throws RemoteQueueError naming the (redacted) address and what to do when Redis is not there. */
  check(): Promise<void>;
  /** The queue's address with any password hidden, for messages. */
  readonly description: string;
  /**
   * Stops following and closes the connections. Remote jobs go on: each pending run rejects
   * with RemoteJobDetached (its remoteId and cursor), to `attach` again on --continue. Close
   * before the job manager stops its jobs, or quitting would stop them on their workers too.
   */
  close(): Promise<void>;
};

interface Connected {
  main: Redis;
  fanIn: StreamFanIn;
  watch: ConnectionWatch;
  queues: Map<string, Queue>;
  stallWatchers: Map<string, Worker>;
}

/** The longest a close waits for BullMQ to let go of its connections. */
const CLOSE_WAIT_MS = 2000;

/** Jobs left on the queue after they end: long enough for a session to come back and read them. */
const KEEP_FINISHED = { age: CHANNEL_TTL_SECONDS };

export function remoteChildRunner(options: RemoteRunnerOptions): RemoteChildRunner {
  const address: RedisAddress = parseRedisUrl(options.redisUrl);
  const prefix = queuePrefix(options.namespace);
  const timers = options.timers ?? realTimers;
  const timing = {
    stalledIntervalMs: options.timing?.stalledIntervalMs ?? 30_000,
    statePollMs: options.timing?.statePollMs ?? 2000,
    stopGraceMs: options.timing?.stopGraceMs ?? 10_000,
    outageLimitMs: options.timing?.outageLimitMs ?? 5 * 60_000,
  };
  const followers = new Map<string, { follower: JobFollower; queue: string }>();
  let connected: Promise<Connected> | undefined;
  let poll: unknown;
  let closed = false;

  const connect = (): Promise<Connected> =>
    (connected ??= (async () => {
      await checkReachable(address);
      const main = openRedis(address);
      const blocking = openRedis(address);
      const fanIn = new StreamFanIn(blocking, main, { timers });
      const watch = new ConnectionWatch(
        main,
        address,
        timing.outageLimitMs,
        {
          onLost: (text) => {
            options.onConnection?.({ kind: 'lost', text });
            for (const { follower } of followers.values()) notice(follower, `${text}; the job goes on when it is back`);
          },
          onBack: () => {
            const text = `the queue at ${address.description} is reachable again`;
            options.onConnection?.({ kind: 'back', text });
            for (const { follower } of followers.values()) notice(follower, text, 'info');
          },
          onGiveUp: (text) => {
            options.onConnection?.({ kind: 'gave-up', text });
            for (const { follower } of followers.values()) follower.fail(text);
          },
        },
        timers,
      );
      return { main, fanIn, watch, queues: new Map(), stallWatchers: new Map() };
    })().catch((error: unknown) => {
      connected = undefined;
      throw error;
    }));

  const notice = (follower: JobFollower, text: string, level: 'info' | 'warn' = 'warn') =>
    followerRequests.get(follower)?.onEvent({ type: 'notice', level, text });
  const followerRequests = new WeakMap<JobFollower, ChildRunRequest>();

  const queueNamed = (c: Connected, name: string): Queue => {
    let queue = c.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: c.main, prefix });
      queue.on('error', () => undefined);
      c.queues.set(name, queue);
    }
    // The session checks for stalled jobs too: with one worker, nobody else would notice it died.
    if (!c.stallWatchers.has(name)) {
      const watcher = new Worker(name, undefined, {
        connection: c.main,
        prefix,
        autorun: false,
        maxStalledCount: options.retries ?? 0,
        stalledInterval: timing.stalledIntervalMs,
      });
      watcher.on('error', () => undefined);
      c.stallWatchers.set(name, watcher);
      void watcher.startStalledCheckTimer().catch(() => undefined);
    }
    return queue;
  };

  /**
   * Every poll: messages sent to a running job (agent_send) go to its worker, which hands them
   * to the child at its next step; then the queue is asked how each job stands, and those whose
   * worker will never end them are settled.
   */
  const pollStates = async (): Promise<void> => {
    poll = undefined;
    if (closed || followers.size === 0) return;
    const c = await connect();
    for (const [remoteId, { follower, queue }] of followers) {
      if (follower.done || c.watch.isDown) continue;
      try {
        const sent = followerRequests.get(follower)?.takeInbox?.() ?? [];
        for (const message of sent)
          await appendEntry(c.main, channelKeys(prefix, remoteId).control, { kind: 'message', message });
        const verdict = await queueVerdict(queueNamed(c, queue), remoteId);
        if (!verdict || follower.done) continue;
        // The last entries may have landed after the last read: read them before settling.
        follower.take(await readAll(c.main, channelKeys(prefix, remoteId).out, follower.cursor));
        if (!follower.done) follower.settleFromQueue(verdict);
      } catch {
        // Redis went away between two commands: the watch reports it, the next poll tries again.
      }
    }
    schedulePoll();
  };
  const schedulePoll = () => {
    if (poll !== undefined || closed || followers.size === 0) return;
    poll = timers.setTimeout(() => void pollStates(), timing.statePollMs);
    unrefTimer(poll);
  };

  const follow = async (
    c: Connected,
    remoteId: string,
    queue: string,
    request: ChildRunRequest,
    after: string,
    enqueue?: () => Promise<void>,
  ): Promise<ChildOutcome> => {
    const follower = new JobFollower(remoteId, request, options, after);
    followerRequests.set(follower, request);
    followers.set(remoteId, { follower, queue });
    const keys = channelKeys(prefix, remoteId);
    // Read from the job's first entry (or after the last one seen before a restart).
    c.fanIn.follow(keys.out, after, (entries) => follower.take(entries));
    const onAbort = () => void stopRemote(c, remoteId, queue, follower);
    try {
      if (enqueue) await enqueue();
      request.signal.addEventListener('abort', onAbort, { once: true });
      if (request.signal.aborted) onAbort();
      schedulePoll();
      return await follower.outcome;
    } finally {
      request.signal.removeEventListener('abort', onAbort);
      c.fanIn.unfollow(keys.out);
      followers.delete(remoteId);
    }
  };

  /** The stop: a job still waiting leaves the queue; a running one is told, and settled here if its worker does not answer. */
  const stopRemote = async (c: Connected, remoteId: string, queue: string, follower: JobFollower): Promise<void> => {
    const grace = timers.setTimeout(() => follower.fail('stopped (the worker did not confirm)'), timing.stopGraceMs);
    unrefTimer(grace);
    const clear = () => timers.clearTimeout(grace);
    follower.outcome.then(clear, clear);
    try {
      await appendEntry(c.main, channelKeys(prefix, remoteId).control, { kind: 'stop', reason: 'stopped by the session' });
      const job = await Job.fromId(queueNamed(c, queue), remoteId);
      const state = await job?.getState();
      if (state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'waiting-children') {
        await job?.remove().catch(() => undefined);
        follower.fail('stopped');
      }
    } catch {
      // Unreachable: the grace timer settles the job.
    }
  };

  const run = async (request: ChildRunRequest): Promise<ChildOutcome> => {
    if (closed) throw new Error('the remote queue runner is closed');
    const definition = options.definitions().get(request.definition);
    if (!definition) throw new Error(`unknown agent "${request.definition}"`);
    const c = await connect();
    const labels = normalizeLabels(options.labelsFor?.(request, definition) ?? []);
    const workspace = await options.workspaceFor(request);
    const remoteId = remoteJobId(options.sessionId, request.id, randomBytes(4).toString('hex'));
    const payload = buildPayload({
      remoteId,
      sessionId: options.sessionId,
      request,
      definition,
      workspace,
      caps: options.capsFor?.(request),
      permissionMode: options.permissionMode,
      sandbox: options.sandbox,
      labels,
      secrets: options.secrets,
    });
    const queue = queueForLabels(labels);
    return follow(c, remoteId, queue, request, '0', async () => {
      await queueNamed(c, queue).add('sub-agent', payload, {
        jobId: remoteId,
        attempts: 1,
        removeOnComplete: KEEP_FINISHED,
        removeOnFail: KEEP_FINISHED,
      });
      options.onEnqueued?.(request.id, remoteId);
    });
  };

  const attach = async (remoteId: string, request: ChildRunRequest, attachOptions: { after?: string } = {}) => {
    const c = await connect();
    const job = await findJob(c, remoteId);
    const queue = job?.queueName ?? queueForLabels([]);
    return follow(c, remoteId, queue, request, attachOptions.after ?? '0');
  };

  /** The job by id in any queue this runner knows, or by its payload's labels. */
  const findJob = async (c: Connected, remoteId: string): Promise<Job | undefined> => {
    const names = new Set([queueForLabels([]), ...c.queues.keys()]);
    for (const name of names) {
      const job = await Job.fromId(queueNamed(c, name), remoteId);
      if (job) return job;
    }
    // Sent to a labelled queue by an earlier run of the session: its stream says nothing of where, so look.
    const found = (await c.main.keys(`${prefix}:label-*:${remoteId}`))[0];
    const name = found?.slice(prefix.length + 1, -(remoteId.length + 1));
    return name ? Job.fromId(queueNamed(c, name), remoteId) : undefined;
  };

  const runner = run as RemoteChildRunner;
  runner.attach = attach;
  runner.check = async () => {
    await connect();
  };
  Object.defineProperty(runner, 'description', { value: address.description });
  runner.close = async () => {
    closed = true;
    if (poll !== undefined) timers.clearTimeout(poll);
    const c = await connected?.catch(() => undefined);
    if (!c) return;
    // The jobs go on on their workers: their runs end with RemoteJobDetached, to attach again later.
    for (const { follower } of followers.values()) follower.detach();
    c.watch.stop();
    // With Redis gone, closing politely would wait for it: drop the connection first.
    if (c.main.status !== 'ready') c.main.disconnect();
    await c.fanIn.close();
    const bull = [...c.stallWatchers.values()].map((w) => w.close(true)).concat([...c.queues.values()].map((q) => q.close()));
    await settleWithin(Promise.all(bull), CLOSE_WAIT_MS, timers);
    await closeRedis(c.main);
  };
  return runner;
}

/** How the queue holds a job no end has come for: undefined while it may still come. */
async function queueVerdict(queue: Queue, remoteId: string): Promise<QueueVerdict | undefined> {
  const state = await queue.getJobState(remoteId);
  if (state === 'unknown') return { kind: 'missing' };
  if (state === 'completed') return { kind: 'completed-silently' };
  if (state !== 'failed' && state !== 'waiting' && state !== 'prioritized') return undefined;
  const job = await Job.fromId(queue, remoteId);
  if (state !== 'failed') {
    // Past its stall limit a job goes back to waiting marked to fail: the next worker to fetch
    // it fails it without running it. It will not run again, so it is lost now.
    return job?.deferredFailure && /stalled/i.test(job.deferredFailure) ? { kind: 'stalled' } : undefined;
  }
  const reason = job?.failedReason ?? 'no reason given';
  return /stalled/i.test(reason) ? { kind: 'stalled' } : { kind: 'failed', reason };
}
