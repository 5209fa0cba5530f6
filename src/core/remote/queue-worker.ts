/**
 * A worker: a long-running process that takes sub-agent jobs off the queue and runs them. It
 * consumes the default queue and its labels' queues (queue-names.ts), at most `concurrency`
 * jobs at once across all of them. Each job's payload is read with zod and held against the
 * worker's ceiling before anything runs; a refused job ends at once with the reason. While a
 * job runs, its events and messages go to its `out` stream, and a stop from its `control`
 * stream aborts its signal. A worker that dies mid-job stops renewing its lock; BullMQ's stall
 * check then fails the job (`maxStalledCount` is `retries`, 0 by default: no silent re-run).
 */
import { Worker, WaitingError } from 'bullmq';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { LoopEvent } from '../loop/events.js';
import { oneLine } from '../platform/text.js';
import { type Timers, realTimers } from '../platform/timers.js';
import { type Message, type Usage, emptyUsage } from '../providers/types.js';
import { type JobGrant, type WorkerCeiling, grantFor } from './ceiling.js';
import { type RawEntry, type RemoteBranch, type RemoteEnd, appendEntry, parseControlEntry } from './channels.js';
import { EntryWriter } from './entry-writer.js';
import { type RemoteJobPayload, parsePayload } from './payload.js';
import { channelKeys, checkName, normalizeLabels, queuePrefix, queuesForWorker } from './queue-names.js';
import { checkReachable, closeRedis, openRedis, settleWithin } from './redis-connection.js';
import { parseRedisUrl, redactRedisText } from './redis-url.js';
import { PayloadRefused } from './remote-errors.js';
import { StreamFanIn } from './stream-fan-in.js';
import { watchBudget } from './worker-budget.js';

/** What a job's runner is given besides its payload. */
export interface RemoteJobContext {
  /** Aborted by a stop from the session, the job's budget, or the worker shutting down. */
  signal: AbortSignal;
  onEvent: (event: LoopEvent) => void;
  /** Each message as it joins the child's history, its task first. */
  onMessage: (message: Message) => void;
  /** Messages the session sent to the running job since the last call. */
  takeInbox: () => Message[];
  grant: JobGrant;
}

/** What a job's runner reports. */
export interface RemoteJobResult {
  outcome: RemoteEnd;
  usage: Usage;
  branch?: RemoteBranch;
}

export type RemoteJobRunner = (payload: RemoteJobPayload, context: RemoteJobContext) => Promise<RemoteJobResult>;

export interface QueueWorkerOptions {
  redisUrl: string;
  /** Shown on the session's rows (`sub-3 @ build-2`). */
  name: string;
  concurrency?: number;
  labels?: readonly string[];
  namespace?: string;
  ceiling: WorkerCeiling;
  runJob: RemoteJobRunner;
  /** Times a job whose worker was lost runs again; default 0. */
  retries?: number;
  /** How long a job's lock lasts without renewal (a dead worker's jobs stall after it); default 30 s. */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for; default 30 s. */
  stalledIntervalMs?: number;
  /** One line per job taken, refused or ended, and per connection problem, for the worker's log. */
  onLog?: (line: string) => void;
  /** Prices a job's usage, for its `maxCostUsd` cap. */
  costOf?: (usage: Usage, model: string | undefined) => number;
  timers?: Timers;
}

/** A worker that is taking jobs. */
export interface RunningWorker {
  readonly name: string;
  /** The queues it consumes. */
  readonly queues: readonly string[];
  /** Jobs running now. */
  running(): number;
  /**
   * Stops taking jobs, lets running ones finish for up to `graceMs` (default 0: at once), then
   * stops them (each ends `error`, saying the worker shut down) and closes its connections.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** The longest a close waits for BullMQ to let go (several times that for running jobs to report their end). */
const CLOSE_WAIT_MS = 2000;

interface ActiveJob {
  controller: AbortController;
  done: Promise<void>;
}

/** Starts a worker; throws RemoteQueueError (the address redacted) when Redis cannot be reached. */
export async function runWorker(options: QueueWorkerOptions): Promise<RunningWorker> {
  const address = parseRedisUrl(options.redisUrl);
  const name = checkName(options.name, 'worker name');
  const prefix = queuePrefix(options.namespace);
  const labels = normalizeLabels(options.labels ?? []);
  const queues = queuesForWorker(labels);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const timers = options.timers ?? realTimers;
  const log = options.onLog ?? (() => undefined);
  const logError = (message: string) => log(`queue error: ${redactRedisText(message, address)}`);
  await checkReachable(address);

  const main = openRedis(address, logError);
  const control = new StreamFanIn(openRedis(address, logError), main, { timers, onError: logError });
  const active = new Map<string, ActiveJob>();
  const bullWorkers: Worker[] = [];
  let stopping = false;

  // Several queues share `concurrency` slots. When all are taken every queue stops fetching; a
  // job fetched just before that goes back to waiting at once, where another worker can take it.
  const fetching = { paused: false };
  const pauseAll = () => {
    if (fetching.paused) return;
    fetching.paused = true;
    for (const worker of bullWorkers) void worker.pause(true).catch(() => undefined);
  };
  const resumeAll = () => {
    if (!fetching.paused || stopping) return;
    fetching.paused = false;
    for (const worker of bullWorkers) void worker.resume().catch(() => undefined);
  };

  const refuse = async (job: Job, remoteId: string, error: PayloadRefused) => {
    log(`refused ${remoteId}: ${error.message}`);
    await appendEntry(main, channelKeys(prefix, remoteId).out, {
      kind: 'end',
      worker: name,
      outcome: { status: 'error', text: '', error: `refused by worker ${name}: ${error.message}` },
      usage: emptyUsage(),
    });
  };

  const processJob = async (job: Job, token: string | undefined, bullSignal?: AbortSignal): Promise<{ status: string }> => {
    const remoteId = job.id ?? '';
    if (active.size >= concurrency || stopping) {
      await job.moveToWait(token);
      throw new WaitingError();
    }
    let payload: RemoteJobPayload;
    let grant: JobGrant;
    try {
      payload = parsePayload(job.data);
      if (payload.remoteId !== remoteId) throw new PayloadRefused(`the payload names job ${payload.remoteId}, not ${remoteId}`);
      const missing = payload.labels.filter((label) => !labels.includes(label));
      if (missing.length) throw new PayloadRefused(`the job needs labels this worker lacks: ${missing.join(', ')}`);
      grant = grantFor(payload, options.ceiling);
    } catch (error) {
      if (!(error instanceof PayloadRefused)) throw error;
      await refuse(job, remoteId, error);
      return { status: 'refused' };
    }

    const controller = new AbortController();
    let finished!: () => void;
    active.set(remoteId, { controller, done: new Promise((resolve) => (finished = resolve)) });
    if (active.size >= concurrency) pauseAll();
    const keys = channelKeys(prefix, remoteId);
    const writer = new EntryWriter(main, keys.out, logError);
    const inbox: Message[] = [];
    const onBullAbort = () => controller.abort(new Error('the worker is shutting down'));
    bullSignal?.addEventListener('abort', onBullAbort, { once: true });
    control.follow(keys.control, '0', (entries: RawEntry[]) => {
      for (const raw of entries) {
        const entry = parseControlEntry(raw);
        if (entry?.kind === 'stop') controller.abort(new Error(entry.reason));
        if (entry?.kind === 'message') inbox.push(entry.message as Message);
      }
    });
    const budget = watchBudget(grant.caps, payload.model, options.costOf, (reason) => controller.abort(new Error(reason)));
    log(`took ${remoteId} (${payload.definition.name}: ${oneLine(payload.task, 60)})`);
    writer.write({ kind: 'started', worker: name, attempt: job.attemptsStarted });
    try {
      const result = await options
        .runJob(payload, {
          signal: controller.signal,
          onEvent: (event) => {
            budget.see(event);
            writer.write({ kind: 'event', event });
          },
          onMessage: (message) => writer.write({ kind: 'message', message }),
          takeInbox: () => inbox.splice(0),
          grant,
        })
        .catch((error: unknown): RemoteJobResult => ({
          outcome: { status: 'error', text: '', error: (error as Error).message ?? String(error) },
          usage: emptyUsage(),
        }));
      // A stop, a cap or a shutdown names itself rather than the child's bare "stopped".
      const reason = controller.signal.aborted ? (controller.signal.reason as Error | undefined)?.message : undefined;
      const outcome: RemoteEnd =
        reason && result.outcome.status === 'error' ? { ...result.outcome, error: stopText(reason) } : result.outcome;
      writer.write({
        kind: 'end',
        worker: name,
        outcome,
        usage: result.usage,
        ...(result.branch ? { branch: result.branch } : {}),
      });
      await writer.drained();
      log(
        `ended ${remoteId}: ${outcome.status}${outcome.error ? ` (${outcome.error})` : ''}${result.branch ? `, branch ${result.branch.name}` : ''}`,
      );
      return { status: outcome.status };
    } finally {
      bullSignal?.removeEventListener('abort', onBullAbort);
      control.unfollow(keys.control);
      active.delete(remoteId);
      finished();
      if (active.size < concurrency) resumeAll();
    }
  };

  for (const queue of queues) {
    const worker = new Worker(queue, processJob, {
      connection: main,
      prefix,
      name,
      concurrency,
      maxStalledCount: options.retries ?? 0,
      ...(options.lockDurationMs !== undefined ? { lockDuration: options.lockDurationMs } : {}),
      ...(options.stalledIntervalMs !== undefined ? { stalledInterval: options.stalledIntervalMs } : {}),
      // How long an idle fetch blocks before it asks again (seconds): a paused or closing worker answers within it.
      drainDelay: 1,
    });
    worker.on('error', (error) => logError(error.message));
    worker.on('stalled', (jobId) => log(`job ${jobId} stalled (its worker stopped renewing its lock)`));
    bullWorkers.push(worker);
  }
  log(`worker ${name} takes jobs from ${queues.map((q) => `${prefix}:${q}`).join(', ')} (at most ${concurrency} at once)`);

  return {
    name,
    queues,
    running: () => active.size,
    async close({ graceMs = 0 } = {}) {
      if (stopping) return;
      stopping = true;
      const down = main.status !== 'ready';
      await settleWithin(Promise.all(bullWorkers.map((worker) => worker.pause(true))), CLOSE_WAIT_MS, timers);
      const allDone = () => Promise.all([...active.values()].map((job) => job.done));
      if (active.size > 0 && graceMs > 0) await settleWithin(allDone(), graceMs, timers);
      for (const job of active.values()) job.controller.abort(new Error('the worker is shutting down'));
      // Stopped jobs report their end; with Redis gone that cannot happen, and the wait is bounded.
      await settleWithin(allDone(), down ? 0 : CLOSE_WAIT_MS * 5, timers);
      if (main.status !== 'ready') main.disconnect();
      await settleWithin(Promise.all(bullWorkers.map((worker) => worker.close(true))), CLOSE_WAIT_MS, timers);
      await control.close();
      await closeRedis(main as Redis);
    },
  };
}

function stopText(reason: string): string {
  if (reason.startsWith('budget:')) return reason;
  if (reason === 'stopped by the session') return 'stopped';
  return `stopped: ${reason}`;
}
