/**
 * Where jobs live in Redis. Every key sits under `outrider:<namespace>` (the user's setting, so
 * two users or two teams on one Redis never see each other's jobs). A job goes to one queue:
 * `jobs` when it names no label, else the queue of its sorted label set (`label-gpu`,
 * `label-big+gpu`). A worker consumes `jobs` and the queue of every non-empty subset of its own
 * labels, so a job runs only on a worker that has all of its labels. (BullMQ refuses `:` in a
 * queue name; the prefix carries the namespace instead.)
 */
import { RemoteQueueError } from './remote-errors.js';

export const DEFAULT_NAMESPACE = 'default';
export const DEFAULT_QUEUE = 'jobs';
/** A worker's labels are capped: it consumes a queue per subset of them. */
export const MAX_WORKER_LABELS = 4;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A namespace, label or worker name: letters, digits, `_`, `.`, `-`; up to 64; throws saying so. */
export function checkName(value: string, what: string): string {
  if (!NAME.test(value)) {
    throw new RemoteQueueError(
      `invalid ${what} "${value.slice(0, 80)}": use letters, digits, "_", "." and "-" (at most 64, starting with a letter or digit)`,
    );
  }
  return value;
}

/** The BullMQ key prefix of a namespace: `outrider:<namespace>`. */
export function queuePrefix(namespace: string = DEFAULT_NAMESPACE): string {
  return `outrider:${checkName(namespace, 'queue namespace')}`;
}

/** Labels as a set: checked, without repeats, sorted. */
export function normalizeLabels(labels: readonly string[]): string[] {
  return [...new Set(labels.map((label) => checkName(label.trim(), 'label')))].sort();
}

/** The queue a job with these labels goes to. */
export function queueForLabels(labels: readonly string[]): string {
  const set = normalizeLabels(labels);
  return set.length === 0 ? DEFAULT_QUEUE : `label-${set.join('+')}`;
}

/** The queues a worker with these labels consumes: the default one, then one per non-empty subset of its labels. */
export function queuesForWorker(labels: readonly string[]): string[] {
  const set = normalizeLabels(labels);
  if (set.length > MAX_WORKER_LABELS) {
    throw new RemoteQueueError(
      `a worker takes at most ${MAX_WORKER_LABELS} labels; ${set.length} were given (${set.join(', ')})`,
    );
  }
  const queues = [DEFAULT_QUEUE];
  // Every subset, smaller ones first; each subset keeps the sorted order, so its name is the job's.
  for (let size = 1; size <= set.length; size += 1) {
    for (const subset of subsetsOfSize(set, size)) queues.push(queueForLabels(subset));
  }
  return queues;
}

function subsetsOfSize(items: readonly string[], size: number, from = 0): string[][] {
  if (size === 0) return [[]];
  const out: string[][] = [];
  for (let i = from; i <= items.length - size; i += 1) {
    for (const rest of subsetsOfSize(items, size - 1, i + 1)) out.push([items[i]!, ...rest]);
  }
  return out;
}

/** A job's id in the queue: its session, its id there, and a run tag (a resumed job runs again under a new one). */
export function remoteJobId(sessionId: string, jobId: string, run: string): string {
  const id = `${sessionId}.${jobId}.${run}`;
  if (!/^[A-Za-z0-9_.-]{1,200}$/.test(id))
    throw new RemoteQueueError(`cannot send job ${jobId} of session ${sessionId}: unusable id`);
  return id;
}

/** The Redis keys of one job's two channels (channels.ts): what the worker reports, and what the session asks. */
export function channelKeys(prefix: string, remoteId: string): { out: string; control: string } {
  return { out: `${prefix}:run:${remoteId}:out`, control: `${prefix}:run:${remoteId}:control` };
}
