/**
 * Repairs what a crash cut in a session's jobs before the session resumes. Each job the store
 * shows cut off (queued or running when the process died) gets its end written, interrupted,
 * so the store says what the resumed session shows; an isolated one's uncommitted work is first
 * committed to its branch, so nothing it wrote is lost. Its transcript needs no rewrite:
 * `repairHistory` makes it valid whenever it is read.
 */
import path from 'node:path';
import { interruptedError } from '../jobs/interrupted.js';
import type { StoredJob } from '../jobs/job-record.js';
import type { Job } from '../jobs/job-types.js';
import { kindOf } from '../jobs/job-ids.js';
import { describeSalvage } from '../worktrees/salvage.js';
import { WorktreeJobs } from '../worktrees/worktree-jobs.js';
import type { ReadJob } from './job-store.js';
import { jobStateRecord, transcriptSize } from './job-state-record.js';
import { writeShellRecord } from './shell-records.js';
import { type SessionPaths, agentTranscriptPath } from './store.js';
import { TranscriptWriter } from './transcript.js';

export interface RecoverJobsOptions {
  paths: SessionPaths;
  sessionId: string;
  /** The folder the session runs in: its worktrees' checkout. */
  cwd: string;
  /** The environment whose API keys the transcript writer redacts. */
  env: NodeJS.ProcessEnv;
}

/** The jobs as the session restores them, and one line per thing that could not be done, for the user. */
export interface RecoveredJobs {
  jobs: StoredJob[];
  warnings: string[];
}

/** Ends every job the crash cut off as interrupted (its worktree salvaged first); the others pass through. */
export async function recoverJobs(read: readonly ReadJob[], options: RecoverJobsOptions): Promise<RecoveredJobs> {
  const warnings: string[] = [];
  let worktrees: WorktreeJobs | undefined;
  const jobs: StoredJob[] = [];
  for (const { cut, ...stored } of read) {
    if (!cut) {
      jobs.push(stored);
      continue;
    }
    let detail: string | undefined;
    if (kindOf(stored.job) === 'sub') {
      worktrees ??= new WorktreeJobs({
        cwd: options.cwd,
        stateDir: path.join(options.paths.dir, 'worktrees'),
        sessionId: options.sessionId,
      });
      detail = await salvage(worktrees, stored.job, warnings);
    }
    const job: Job = { ...stored.job, error: interruptedError(detail) };
    writeEnd(job, options, warnings);
    jobs.push({ ...stored, job });
  }
  return { jobs, warnings };
}

/** Commits the job's uncommitted work to its branch; what its error says of that, if anything. */
async function salvage(worktrees: WorktreeJobs, job: Job, warnings: string[]): Promise<string | undefined> {
  const record = worktrees.get(job.id);
  if (!record) return undefined;
  try {
    const salvaged = await worktrees.salvage(job.id, job.task);
    return salvaged && salvaged.files.length > 0 ? describeSalvage(salvaged, salvaged.branch) : undefined;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    warnings.push(
      `could not salvage ${job.id}'s worktree ${record.path}: ${why}; its files are still there (commit them by hand)`,
    );
    return `its uncommitted files are still in ${record.path}`;
  }
}

/** Writes the job's interrupted end into its file, as its own run would have. */
function writeEnd(job: Job, options: RecoverJobsOptions, warnings: string[]): void {
  const { paths } = options;
  const warn = (error: unknown) =>
    warnings.push(
      `could not record that ${job.id} was interrupted: ${error instanceof Error ? error.message : String(error)}; it is listed as interrupted this time only`,
    );
  try {
    const parentAt = transcriptSize(paths.transcript);
    if (kindOf(job) === 'shell') {
      writeShellRecord(paths, job, undefined, { parentAt });
      return;
    }
    const writer = new TranscriptWriter(
      agentTranscriptPath(paths, job.id),
      { sessionId: `${options.sessionId}/${job.id}`, cwd: options.cwd, provider: '', model: '', jobId: job.id },
      { onError: warn, env: options.env },
    );
    writer.event('job_state', jobStateRecord(job, parentAt));
    writer.close();
  } catch (error) {
    warn(error);
  }
}
