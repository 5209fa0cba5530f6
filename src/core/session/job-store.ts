import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { finalText } from '../agents/child-run.js';
import { compareJobIds, depthOfId } from '../jobs/job-ids.js';
import { type StoredJob, isEnded } from '../jobs/job-record.js';
import type { Job, JobState } from '../jobs/job-types.js';
import { type Usage, emptyUsage } from '../providers/types.js';
import { errnoCode } from '../platform/fs-errors.js';
import { repairHistory } from './repair-history.js';
import type { SessionPaths } from './store.js';
import { readTranscript } from './transcript.js';

export type { StoredJob };

/** How a job ended, as its transcript's `job_end` event records it. */
export interface JobEndRecord {
  state: JobState;
  error?: string;
  turns: number;
  toolCalls: number;
  usage: Usage;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
}

/** A sub-agent's transcript: `sub-3.jsonl`, or a nested job's, `sub-3.1.jsonl`. */
const JOB_FILE = /^(sub-(\d+(?:\.\d+)*))\.jsonl$/;
/** A background shell's record (`shell-record.ts`): `sh-2.json`. */
const SHELL_FILE = /^(sh-(\d+))\.json$/;

/** The facts a child transcript keeps of how its job ended (written when it ends). */
export function jobEndRecord(job: Job): JobEndRecord {
  const { state, error, turns, toolCalls, usage, createdAt, startedAt, endedAt } = job;
  return { state, error, turns, toolCalls, usage, createdAt, startedAt, endedAt };
}

/**
 * The jobs of a session's earlier runs in tree order (each nested job after its owner,
 * shells last): sub-agents from `agents/sub-N.jsonl` and `agents/sub-N.M.jsonl`, shells from
 * `agents/sh-N.json`. A job whose record has no end was cut off by the session ending: it
 * reads as failed. Unreadable files are left out.
 */
export function readStoredJobs(paths: SessionPaths): StoredJob[] {
  const jobs: StoredJob[] = [];
  for (const name of agentFiles(paths)) {
    const sub = JOB_FILE.exec(name);
    const shell = SHELL_FILE.exec(name);
    const file = path.join(paths.agentsDir, name);
    const stored = sub ? readStoredJob(file, sub[1]!) : shell ? readShellRecord(file, shell[1]!) : undefined;
    if (stored) jobs.push(stored);
  }
  return jobs.sort((a, b) => compareJobIds(a.job.id, b.job.id));
}

/**
 * Every job id an earlier run of the session left a file for, readable or not: new jobs are
 * numbered after them, so no transcript or record is reused.
 */
export function storedJobIds(paths: SessionPaths): string[] {
  return agentFiles(paths).flatMap((name) => {
    const match = JOB_FILE.exec(name) ?? SHELL_FILE.exec(name);
    return match ? [match[1]!] : [];
  });
}

/** The number after the highest stored sub-agent of the parent's, so a resumed session never reuses a transcript. */
export function nextJobNumber(paths: SessionPaths): number {
  let highest = 0;
  for (const id of storedJobIds(paths)) {
    const match = /^sub-(\d+)$/.exec(id);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest + 1;
}

/** The job's own number: `sub-3` → 3, `sub-3.2` → 2. */
function lastNumber(id: string): number {
  return Number(/(\d+)$/.exec(id)?.[1] ?? 0);
}

function agentFiles(paths: SessionPaths): string[] {
  try {
    return readdirSync(paths.agentsDir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
}

function readStoredJob(file: string, id: string): StoredJob | undefined {
  let read: ReturnType<typeof readTranscript>;
  try {
    read = readTranscript(file);
  } catch {
    return undefined;
  }
  const end = read.events.findLast((e) => e.name === 'job_end')?.data as Partial<JobEndRecord> | undefined;
  const messages = repairHistory(read.history).history;
  const createdAt = Date.parse(read.meta.createdAt);
  // The file's name is the job's id: a resumed run writes there again.
  const owner = id.includes('.') ? id.slice(0, id.lastIndexOf('.')) : undefined;
  const job: Job = {
    id,
    number: lastNumber(id),
    ...(owner ? { owner, depth: depthOfId(id) } : {}),
    state: end?.state ?? 'error',
    definition: read.meta.definition ?? 'unknown',
    mode: 'typed',
    task: read.meta.task ?? '',
    createdAt: end?.createdAt ?? createdAt,
    startedAt: end?.startedAt,
    endedAt: end?.endedAt,
    result: finalText(messages),
    error: end ? end.error : 'the session ended while this sub-agent ran',
    turns: end?.turns ?? 0,
    toolCalls: end?.toolCalls ?? 0,
    contextTokens: 0,
    usage: end?.usage ?? emptyUsage(),
  };
  return { job, messages };
}

/** What a session keeps of a background shell, so a resumed session lists it and numbers new shells after it. */
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
}

/**
 * Writes shell `job`'s record to `agents/sh-N.json` (replaced whole: a crash leaves the old
 * one): when it starts, so even a crash leaves its number taken, and when it ends. Its last
 * line passes `scrub`, as everything a tool returns does. Throws when the folder is not writable.
 */
export function writeShellRecord(paths: SessionPaths, job: Job, scrub: (text: string) => string = (text) => text): void {
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
  };
  mkdirSync(paths.agentsDir, { recursive: true, mode: 0o700 });
  const file = path.join(paths.agentsDir, `${job.id}.json`);
  const temp = path.join(paths.agentsDir, `.${job.id}.json.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function readShellRecord(file: string, id: string): StoredJob | undefined {
  let record: Partial<ShellRecord>;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as Partial<ShellRecord>;
  } catch {
    return undefined;
  }
  if (typeof record !== 'object' || record === null || typeof record.command !== 'string') return undefined;
  const state: JobState = typeof record.state === 'string' ? record.state : 'error';
  // Still running when the record was last written: the session ended without stopping it (a crash).
  const cut = !isEnded(state);
  const job: Job = {
    id,
    number: lastNumber(id),
    kind: 'shell',
    state: cut ? 'error' : state,
    definition: 'shell',
    mode: 'typed',
    task: record.command,
    createdAt: numberOr(record.createdAt) ?? 0,
    startedAt: numberOr(record.startedAt),
    endedAt: numberOr(record.endedAt),
    error: cut ? 'the session ended while this shell ran' : textOr(record.error),
    exitCode: record.exitCode === null ? null : numberOr(record.exitCode),
    lastLine: textOr(record.lastLine),
    result: textOr(record.lastLine) ?? '',
    turns: 0,
    toolCalls: 0,
    contextTokens: 0,
    usage: emptyUsage(),
    ...(typeof record.owner === 'string' && record.owner ? { owner: record.owner, depth: depthOfId(record.owner) + 1 } : {}),
  };
  return { job, messages: [] };
}

/** A field of a hand-edited or foreign record, kept only when it has the right type. */
function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function textOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
