import { readdirSync } from 'node:fs';
import path from 'node:path';
import { finalText } from '../agents/child-run.js';
import type { Job, JobState } from '../agents/job-types.js';
import { type Message, type Usage, emptyUsage } from '../providers/types.js';
import { errnoCode } from '../tools/fs-errors.js';
import { repairHistory } from './repair-history.js';
import type { SessionPaths } from './store.js';
import { readTranscript } from './transcript.js';

/** A job of an earlier run of this session, read back from its transcript. */
export interface StoredJob {
  job: Job;
  messages: Message[];
}

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

const JOB_FILE = /^sub-(\d+)\.jsonl$/;

/** The facts a child transcript keeps of how its job ended (written when it ends). */
export function jobEndRecord(job: Job): JobEndRecord {
  const { state, error, turns, toolCalls, usage, createdAt, startedAt, endedAt } = job;
  return { state, error, turns, toolCalls, usage, createdAt, startedAt, endedAt };
}

/**
 * The jobs of a session's earlier runs, oldest first, from `agents/sub-N.jsonl`. A job
 * whose transcript has no end record was cut off by the session ending: it reads as failed.
 * Unreadable transcripts are left out.
 */
export function readStoredJobs(paths: SessionPaths): StoredJob[] {
  let names: string[];
  try {
    names = readdirSync(paths.agentsDir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
  const jobs: StoredJob[] = [];
  for (const name of names) {
    const match = JOB_FILE.exec(name);
    if (!match) continue;
    const stored = readStoredJob(path.join(paths.agentsDir, name), Number(match[1]));
    if (stored) jobs.push(stored);
  }
  return jobs.sort((a, b) => a.job.number - b.job.number);
}

/** The number after the highest stored job, so a resumed session never reuses a transcript. */
export function nextJobNumber(paths: SessionPaths): number {
  let highest = 0;
  try {
    for (const name of readdirSync(paths.agentsDir)) {
      const match = JOB_FILE.exec(name);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
  return highest + 1;
}

function readStoredJob(file: string, number: number): StoredJob | undefined {
  let read: ReturnType<typeof readTranscript>;
  try {
    read = readTranscript(file);
  } catch {
    return undefined;
  }
  const end = read.events.findLast((e) => e.name === 'job_end')?.data as Partial<JobEndRecord> | undefined;
  const messages = repairHistory(read.history).history;
  const createdAt = Date.parse(read.meta.createdAt);
  const job: Job = {
    id: read.meta.jobId ?? `sub-${number}`,
    number,
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
