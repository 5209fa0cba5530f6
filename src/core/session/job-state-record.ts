/**
 * The durable job ledger's records. A job's file (`agents/sub-N.jsonl`, `agents/sh-N.json`)
 * holds its snapshot as of every state change, written before the change is published, and a
 * mark when its end reached the model; a resumed session folds them back into the job. Read
 * back field by field: a crash, a hand edit or another version may have left anything there.
 */
import { statSync } from 'node:fs';
import type { Job, JobState } from '../jobs/job-types.js';
import { errnoCode } from '../platform/fs-errors.js';
import { type Usage, emptyUsage, isEffort } from '../providers/types.js';

/** What a job's file keeps of one state change: the snapshot, and where the parent's transcript ended then. */
export type JobStateRecord = Omit<Job, 'id' | 'number' | 'owner' | 'depth' | 'callId' | 'contextTokens' | 'budgetUsed'> & {
  /**
   * Of an end: the parent transcript's size when it was written. A completion notice on a line
   * starting at or after it was sent after this end, so the end reached the model.
   */
  parentAt?: number;
};

/** The notices a parent transcript holds (readTranscript's `notices`). */
export type ParentNotices = readonly { jobIds: string[]; offset: number }[];

const STATES: readonly JobState[] = ['queued', 'running', 'done', 'error', 'aborted'];

/** The record for `job` as it is now; `parentAt` only matters for an end. */
export function jobStateRecord(job: Job, parentAt?: number): JobStateRecord {
  const { id: _i, number: _n, owner: _o, depth: _d, callId: _c, contextTokens: _t, budgetUsed: _b, ...facts } = job;
  return parentAt === undefined ? facts : { ...facts, parentAt };
}

/** The size of the parent's transcript now: 0 before its first line. */
export function transcriptSize(file: string): number {
  try {
    return statSync(file).size;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return 0;
    throw error;
  }
}

/** True when the parent's transcript named `id` in a notice written after `parentAt` (unknown: no). */
export function noticedAfter(notices: ParentNotices, id: string, parentAt: number | undefined): boolean {
  if (parentAt === undefined) return false;
  return notices.some((notice) => notice.offset >= parentAt && notice.jobIds.includes(id));
}

/** `base` (what the file's name and header say) with every field of `data` that has the right type. */
export function jobFromStateRecord(data: unknown, base: Job): Job & { parentAt?: number } {
  if (typeof data !== 'object' || data === null) return base;
  const record = data as Record<string, unknown>;
  const text = (key: string) => (typeof record[key] === 'string' ? (record[key] as string) : undefined);
  const count = (key: string) => {
    const value = record[key];
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const state = STATES.find((s) => s === record.state);
  const job: Job & { parentAt?: number } = {
    ...base,
    ...(state ? { state } : {}),
    ...(text('definition') ? { definition: text('definition')! } : {}),
    ...(record.mode === 'fork' || record.mode === 'typed' ? { mode: record.mode } : {}),
    ...(text('task') !== undefined ? { task: text('task')! } : {}),
    ...(count('createdAt') !== undefined ? { createdAt: count('createdAt')! } : {}),
    turns: count('turns') ?? base.turns,
    toolCalls: count('toolCalls') ?? base.toolCalls,
    usage: usageOf(record.usage) ?? base.usage,
  };
  for (const key of ['startedAt', 'endedAt', 'parentAt'] as const) {
    const value = count(key);
    if (value !== undefined) job[key] = value;
  }
  for (const key of ['result', 'error', 'model', 'modelRefused', 'lastLine', 'remoteId', 'worker'] as const) {
    const value = text(key);
    if (value !== undefined) job[key] = value;
  }
  // Jobs that waited for jobs: what they named, and whether their reports were added.
  for (const key of ['after', 'waitingFor'] as const) {
    const ids = record[key];
    if (Array.isArray(ids) && ids.every((id) => typeof id === 'string')) job[key] = ids as string[];
  }
  if (record.afterMet === true) job.afterMet = true;
  if (isEffort(record.effort)) job.effort = record.effort;
  if (record.isolation === 'worktree') job.isolation = 'worktree';
  if (record.where === 'local') job.where = 'local';
  if (record.interrupted === true) job.interrupted = true;
  if (record.kind === 'shell') job.kind = 'shell';
  if (typeof record.exitCode === 'number' || record.exitCode === null) job.exitCode = record.exitCode;
  const budget = record.budget as Record<string, unknown> | undefined;
  if (typeof budget === 'object' && budget !== null) {
    const keys = ['maxTokens', 'maxCostUsd', 'maxTurns', 'maxToolCalls', 'maxDurationMs'] as const;
    const caps = Object.fromEntries(keys.flatMap((key) => (typeof budget[key] === 'number' ? [[key, budget[key]]] : [])));
    if (Object.keys(caps).length) job.budget = caps;
  }
  return job;
}

function usageOf(value: unknown): Usage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const usage = emptyUsage();
  for (const key of Object.keys(usage) as (keyof Usage)[]) {
    const figure = (value as Record<string, unknown>)[key];
    if (typeof figure === 'number' && Number.isFinite(figure)) usage[key] = figure;
  }
  return usage;
}
