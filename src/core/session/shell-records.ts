/**
 * What a session keeps of a background shell (`agents/sh-N.json`), so a resumed session lists
 * it, numbers new shells after it, and announces its end once if the model never heard of it.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../platform/atomic-write.js';
import { depthOfId } from '../jobs/job-ids.js';
import { isEnded } from '../jobs/job-record.js';
import type { StoredJob } from '../jobs/job-record.js';
import { INTERRUPTED } from '../jobs/interrupted.js';
import type { Job, JobState } from '../jobs/job-types.js';
import { emptyUsage } from '../providers/types.js';
import { type ParentNotices, noticedAfter } from './job-state-record.js';
import type { SessionPaths } from './store.js';

interface ShellRecord {
  id: string;
  state: JobState;
  command: string;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  exitCode?: number | null;
  error?: string;
  lastLine?: string;
  owner?: string;
  interrupted?: boolean;
  /** Its end reached the model. Absent in records of versions that kept no account (read: delivered). */
  delivered?: boolean;
  /** Of an end: the parent transcript's size then (`job-state-record.ts`). */
  parentAt?: number;
}

/** A shell as read back, and whether a crash cut it off with no end written. */
export interface ReadShell extends StoredJob {
  cut: boolean;
}

/**
 * Writes shell `job`'s record to `agents/sh-N.json` (replaced whole: a crash leaves the old
 * one): at every state change, so even a crash leaves its number taken. Its last line passes
 * `scrub`, as everything a tool returns does. Throws when the folder is not writable.
 */
export function writeShellRecord(
  paths: SessionPaths,
  job: Job,
  scrub: (text: string) => string = (text) => text,
  account: { delivered?: boolean; parentAt?: number } = {},
): void {
  const record: ShellRecord = {
    id: job.id,
    state: job.state,
    command: job.task,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    endedAt: job.endedAt,
    exitCode: job.exitCode,
    error: job.error,
    lastLine: job.lastLine === undefined ? undefined : scrub(job.lastLine),
    owner: job.owner,
    ...(job.interrupted ? { interrupted: true } : {}),
    delivered: account.delivered ?? false,
    ...(account.parentAt === undefined ? {} : { parentAt: account.parentAt }),
  };
  replaceFile(paths, `${job.id}.json`, `${JSON.stringify(record)}\n`);
}

/** Marks shell `id`'s end as delivered to the model; nothing when it has no readable record. */
export function markShellDelivered(paths: SessionPaths, id: string): void {
  const file = path.join(paths.agentsDir, `${id}.json`);
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return;
  }
  if (typeof record !== 'object' || record === null) return;
  replaceFile(paths, `${id}.json`, `${JSON.stringify({ ...record, delivered: true })}\n`);
}

function replaceFile(paths: SessionPaths, name: string, text: string): void {
  mkdirSync(paths.agentsDir, { recursive: true, mode: 0o700 });
  writeFileAtomicSync(path.join(paths.agentsDir, name), text, { mode: 0o600 });
}

/** The shell of `agents/sh-N.json`, or undefined when the file cannot be read as one. */
export function readShellRecord(file: string, id: string, notices: ParentNotices = []): ReadShell | undefined {
  let record: Partial<ShellRecord>;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as Partial<ShellRecord>;
  } catch {
    return undefined;
  }
  if (typeof record !== 'object' || record === null || typeof record.command !== 'string') return undefined;
  const state: JobState = typeof record.state === 'string' ? record.state : 'error';
  // Still running when the record was last written (a crash), or stopped because the session closed.
  const cut = !isEnded(state) || (state === 'aborted' && record.interrupted === true);
  const interrupted = cut || record.interrupted === true;
  const job: Job = {
    id,
    number: Number(/(\d+)$/.exec(id)?.[1] ?? 0),
    kind: 'shell',
    state: cut ? 'error' : state,
    definition: 'shell',
    mode: 'typed',
    task: record.command,
    createdAt: numberOr(record.createdAt) ?? 0,
    startedAt: numberOr(record.startedAt),
    endedAt: numberOr(record.endedAt),
    error: cut ? INTERRUPTED : textOr(record.error),
    exitCode: record.exitCode === null ? null : numberOr(record.exitCode),
    lastLine: textOr(record.lastLine),
    result: textOr(record.lastLine) ?? '',
    turns: 0,
    toolCalls: 0,
    contextTokens: 0,
    usage: emptyUsage(),
    ...(interrupted ? { interrupted: true } : {}),
    ...(typeof record.owner === 'string' && record.owner ? { owner: record.owner, depth: depthOfId(record.owner) + 1 } : {}),
  };
  // A record without the field is from before deliveries were kept: its end counts as delivered.
  const accounted = typeof record.delivered === 'boolean';
  const delivered = record.delivered === true || noticedAfter(notices, id, numberOr(record.parentAt));
  const owed = cut ? !delivered : accounted && !delivered && job.state !== 'aborted';
  return { job, messages: [], owed, cut };
}

/** A field of a hand-edited or foreign record, kept only when it has the right type. */
function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function textOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
