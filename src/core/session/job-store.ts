/**
 * A resumed session's jobs, read back from its store (the folder `agents/`): sub-agents, nested
 * ones too, from their transcripts, shells from their records (`shell-records.ts`). Each file is
 * the job's ledger (`job-state-record.ts`): its last state record says how it stands, the marks
 * after it whether the model heard of its end. A job whose last record is not an end was cut off
 * by a crash, and one stopped when the session closed was cut off by its end: either reads as
 * interrupted, with what its transcript shows it did.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { finalText } from '../agents/child-run.js';
import { INTERRUPTED } from '../jobs/interrupted.js';
import { compareJobIds, depthOfId } from '../jobs/job-ids.js';
import { type StoredJob, isEnded } from '../jobs/job-record.js';
import type { Job } from '../jobs/job-types.js';
import { emptyUsage } from '../providers/types.js';
import { errnoCode } from '../platform/fs-errors.js';
import { type ParentNotices, jobFromStateRecord, noticedAfter } from './job-state-record.js';
import { readShellRecord } from './shell-records.js';
import { repairHistory } from './repair-history.js';
import type { SessionPaths } from './store.js';
import { readTranscript } from './transcript.js';

export type { StoredJob };

/** A job as the store holds it, and whether a crash cut it off with no end written (recovery writes one). */
export interface ReadJob extends StoredJob {
  cut: boolean;
}

/** A sub-agent's transcript: `sub-3.jsonl`, or a nested job's, `sub-3.1.jsonl`. */
const JOB_FILE = /^(sub-(\d+(?:\.\d+)*))\.jsonl$/;
/** A background shell's record (`shell-records.ts`): `sh-2.json`. */
const SHELL_FILE = /^(sh-(\d+))\.json$/;

/**
 * The jobs of a session's earlier runs in tree order (each nested job after its owner, shells
 * last). `notices` are the parent transcript's (readTranscript's `notices`): an end a notice
 * named after it was written is delivered even when the crash came before the mark. Unreadable
 * files are left out.
 */
export function readStoredJobs(paths: SessionPaths, notices: ParentNotices = []): ReadJob[] {
  const jobs: ReadJob[] = [];
  for (const name of agentFiles(paths)) {
    const sub = JOB_FILE.exec(name);
    const shell = SHELL_FILE.exec(name);
    const file = path.join(paths.agentsDir, name);
    const stored = sub ? readStoredJob(file, sub[1]!, notices) : shell ? readShellRecord(file, shell[1]!, notices) : undefined;
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

function agentFiles(paths: SessionPaths): string[] {
  try {
    return readdirSync(paths.agentsDir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
}

function readStoredJob(file: string, id: string, notices: ParentNotices): ReadJob | undefined {
  let read: ReturnType<typeof readTranscript>;
  try {
    read = readTranscript(file);
  } catch {
    return undefined;
  }
  // The last state record (`job_end`: written by versions before the ledger), and whether a mark follows it.
  let last: (typeof read.events)[number] | undefined;
  // The last record with the job's counters: its state, or a step's `job_progress`.
  let counted: (typeof read.events)[number] | undefined;
  let delivered = false;
  let ledger = false;
  for (const event of read.events) {
    if (event.name === 'job_state' || event.name === 'job_end') {
      last = event;
      counted = event;
      delivered = false;
      ledger ||= event.name === 'job_state';
    } else if (event.name === 'job_progress') {
      counted = event;
    } else if (event.name === 'job_delivered') {
      delivered = true;
    }
  }
  const messages = repairHistory(read.history).history;
  // The file's name is the job's id: a resumed run writes there again.
  const owner = id.includes('.') ? id.slice(0, id.lastIndexOf('.')) : undefined;
  const base: Job = {
    id,
    number: Number(/(\d+)$/.exec(id)?.[1] ?? 0),
    ...(owner ? { owner, depth: depthOfId(id) } : {}),
    state: 'error',
    definition: read.meta.definition ?? 'unknown',
    mode: 'typed',
    task: read.meta.task ?? '',
    createdAt: Date.parse(read.meta.createdAt),
    turns: 0,
    toolCalls: 0,
    contextTokens: 0,
    usage: emptyUsage(),
  };
  const { parentAt, ...recorded } = jobFromStateRecord(last?.data, base);
  // Stopped because the session ended (a quit, a closed terminal), not by the user or the model.
  const endedWithSession = recorded.state === 'aborted' && recorded.interrupted === true;
  if (last && isEnded(recorded.state) && !endedWithSession) {
    const job = { ...recorded, result: recorded.result ?? finalText(messages) };
    // Of a store too old to keep marks nothing is owed: it would announce every old job again.
    const owed = ledger && job.state !== 'aborted' && !delivered && !noticedAfter(notices, id, parentAt);
    return { job, messages, owed, cut: false };
  }
  // A queue job goes on on its worker whatever happened here: a session with the queue attaches to it again.
  if (recorded.remoteId !== undefined && (recorded.state === 'running' || recorded.state === 'queued')) {
    return { job: { ...recorded, state: 'running' }, messages, owed: false, cut: false };
  }
  // Cut off: its counters as last recorded, and what it did since in the messages written after them.
  const { turns, toolCalls, usage } = jobFromStateRecord(counted?.data, recorded);
  const since = progressOf(read.history.slice(counted?.messageCount ?? 0));
  const job: Job = {
    ...recorded,
    state: 'error',
    interrupted: true,
    error: INTERRUPTED,
    turns: turns + since.turns,
    toolCalls: toolCalls + since.toolCalls,
    usage,
    result: finalText(messages),
    endedAt: endedWithSession ? recorded.endedAt : lastWrite(file),
  };
  return { job, messages, owed: !delivered, cut: true };
}

/** Model turns and tool calls in messages as written (not repaired): one assistant message a turn. */
function progressOf(raw: readonly unknown[]): { turns: number; toolCalls: number } {
  let turns = 0;
  let toolCalls = 0;
  for (const message of raw) {
    if (typeof message !== 'object' || message === null) continue;
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (role !== 'assistant') continue;
    turns += 1;
    if (Array.isArray(content)) toolCalls += content.filter((block) => (block as { type?: unknown })?.type === 'tool_use').length;
  }
  return { turns, toolCalls };
}

/** When the file was last written: as near as the store can tell to when the job was cut off. */
function lastWrite(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}
