/**
 * The session's durable job ledger, written as jobs change: each sub-agent's transcript (opened
 * when it is queued; its state at every change, its messages as its run appends them, its
 * counters after each step) and each shell's record. Every job event goes out through `publish`,
 * which writes it BEFORE the session's stream carries it, so whatever a front end or the model has
 * seen, the store already holds: a crash loses nothing a resumed session would need
 * (`job-store.ts` reads it back, `job-recovery.ts` repairs it).
 */
import { mkdirSync } from 'node:fs';
import type { JobEvent } from '../jobs/job-types.js';
import type { EventStream } from './event-stream.js';
import { isEnded } from '../jobs/job-record.js';
import { kindOf } from '../jobs/job-ids.js';
import { jobStateRecord, transcriptSize } from './job-state-record.js';
import { markShellDelivered, writeShellRecord } from './shell-records.js';
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
  /** The session's stream, which carries each job event once it is written. */
  events: Pick<EventStream, 'publish'>;
}

export class JobRecords {
  /** Transcripts of jobs queued or running; an ended job's is closed (a late line opens it again). */
  private readonly open = new Map<string, TranscriptWriter>();

  constructor(private readonly options: JobRecordsOptions) {}

  /** Sub-agent `jobId`'s transcript for its run: the one opened when it was queued, or a new one. */
  transcriptFor(jobId: string, definition: string, task: string): TranscriptWriter {
    return this.open.get(jobId) ?? this.writerFor(jobId, definition, task);
  }

  /** The job manager's way out (its `emit`): the event written, then published. */
  readonly publish = (event: JobEvent): void => {
    this.record(event);
    this.options.events.publish(event);
  };

  /** Writes what `event` changes. */
  record(event: JobEvent): void {
    if (event.type === 'job_state') {
      const { job } = event;
      const ended = isEnded(job.state);
      // Where the parent's transcript stands at an end: a notice written after it delivered this end.
      const parentAt = ended ? this.parentSize() : undefined;
      if (kindOf(job) === 'shell') {
        this.guard(job.id, 'record', () => writeShellRecord(this.options.paths, job, this.options.scrub, { parentAt }));
        return;
      }
      const writer = this.open.get(job.id) ?? this.writerFor(job.id, job.definition, job.task);
      writer.event('job_state', jobStateRecord(job, parentAt));
      if (ended) {
        this.open.delete(job.id);
        writer.close();
      }
      return;
    }
    if (event.type === 'job_delivered') {
      for (const id of event.jobIds) this.delivered(id, event.via);
      return;
    }
    // After each step its counters, so a job a crash cuts off keeps what it had done and spent.
    if (event.type === 'job_event' && event.event.type === 'turn_end') {
      this.open.get(event.jobId)?.event('job_progress', event.counters);
    }
  }

  /** Marks that job `id`'s end reached the model, after its last state record. */
  private delivered(id: string, via: 'notice' | 'poll'): void {
    if (id.startsWith('sh-')) {
      this.guard(id, 'record', () => markShellDelivered(this.options.paths, id));
      return;
    }
    const open = this.open.get(id);
    // Its file exists (it ended, so it was written): the writer appends without a header.
    const writer = open ?? this.writerFor(id, '', '', { keep: false });
    writer.event('job_delivered', { via });
    if (!open) writer.close();
  }

  private writerFor(jobId: string, definition: string, task: string, options: { keep?: boolean } = {}): TranscriptWriter {
    const { paths, session, env, warn } = this.options;
    // A folder that cannot be made fails each write below with the reason, as a warning: the job goes on.
    this.guard(jobId, 'transcript', () => mkdirSync(paths.agentsDir, { recursive: true, mode: 0o700 }));
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
    if (options.keep !== false) this.open.set(jobId, writer);
    return writer;
  }

  private parentSize(): number | undefined {
    try {
      return transcriptSize(this.options.paths.transcript);
    } catch {
      return undefined;
    }
  }

  private guard(jobId: string, what: string, action: () => void): void {
    try {
      action();
    } catch (error) {
      this.options.warn(`could not write ${jobId}'s ${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
