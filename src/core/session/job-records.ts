/**
 * What a session writes down for its jobs, so a resumed session can list them and number after
 * them: each sub-agent's transcript (opened when it starts, its end written when it ends) and
 * each shell's record (when it starts and when it ends).
 */
import { mkdirSync } from 'node:fs';
import { type JobEvent, isEnded } from '../jobs/job-manager.js';
import { kindOf } from '../jobs/job-ids.js';
import { jobEndRecord, writeShellRecord } from './job-store.js';
import { type SessionPaths, agentTranscriptPath } from './store.js';
import { TranscriptWriter } from './transcript.js';

export interface JobRecordsOptions {
  paths: SessionPaths;
  /** The parent session's transcript header fields, which each sub-agent's repeats. */
  session: { id: string; cwd: string; provider: string; model: string };
  env: NodeJS.ProcessEnv;
  /** Takes secrets out of a shell's command and output before they are written. */
  scrub: (text: string) => string;
  /** Tells the user that something could not be written (the job goes on). */
  warn: (text: string) => void;
}

export class JobRecords {
  private readonly open = new Map<string, TranscriptWriter>();

  constructor(private readonly options: JobRecordsOptions) {}

  /** A new transcript for sub-agent `jobId`, started as `definition` on `task`. */
  transcriptFor(jobId: string, definition: string, task: string): TranscriptWriter {
    const { paths, session, env, warn } = this.options;
    mkdirSync(paths.agentsDir, { recursive: true, mode: 0o700 });
    const writer = new TranscriptWriter(
      agentTranscriptPath(paths, jobId),
      {
        sessionId: `${session.id}/${jobId}`,
        cwd: session.cwd,
        provider: session.provider,
        model: session.model,
        parentSessionId: session.id,
        jobId,
        definition,
        task,
      },
      { onError: (error) => warn(`could not write ${jobId}'s transcript: ${error.message}`), env },
    );
    this.open.set(jobId, writer);
    return writer;
  }

  /** Writes what `event` changes: a job's end into its transcript, a shell's record. */
  record(event: JobEvent): void {
    if (event.type !== 'job_state') return;
    const { job } = event;
    if (isEnded(job.state)) {
      this.open.get(job.id)?.event('job_end', jobEndRecord(job));
      this.open.delete(job.id);
    }
    if (kindOf(job) === 'shell') {
      try {
        writeShellRecord(this.options.paths, job, this.options.scrub);
      } catch (error) {
        this.options.warn(`could not write ${job.id}'s record: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}
