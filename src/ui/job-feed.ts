import { isEnded, type Job, type SessionEvent } from '../core/index.js';
import type { Clock } from './clock.js';
import { EventBuffer } from './state/event-buffer.js';
import { jobTranscript } from './state/job-transcript.js';
import { type EntryLines, type JobFeedItem, type LiveLines, JobViewStore } from './state/job-view-store.js';
import type { JobFacts } from './state/transcript.js';
import type { UiSession } from './ui-session.js';

export interface JobFeedOptions {
  session: Pick<UiSession, 'events' | 'jobHistory' | 'root'>;
  job: Job;
  /** The session's jobs now (a nested job's start and end are drawn with its task). */
  jobs: () => readonly Job[];
  facts: () => JobFacts;
  clock: Clock;
  /** Events within this window are applied in one batch, as the main chat's are. */
  flushMs: number;
  size: { width: number; height: number };
  entryLines: EntryLines;
  liveLines: LiveLines;
}

/**
 * The opened job's transcript, kept whole while its view is up: read from its stored transcript
 * (everything before the view opened, an earlier run's job included), then its own events from
 * the session's stream, batched. Subscribing and reading happen in one tick, so no event is both
 * in the file and applied, and none falls between.
 *
 * The file misses what no event carries: the opening messages of a run (its task, a resumed
 * job's message) and, when the view opens mid-step, the text streamed and the results that came
 * before. So when a run starts, or the view opens on a running job, the file is read again at the
 * job's next step boundary (its results are written before the step's end is published) or end.
 */
export class JobFeed {
  readonly store: JobViewStore;
  private stale: boolean;
  private readonly buffer: EventBuffer<JobFeedItem>;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: JobFeedOptions) {
    const running = !isEnded(options.job.state);
    this.stale = running;
    this.store = new JobViewStore(this.read(running), {
      entryLines: options.entryLines,
      liveLines: options.liveLines,
      width: options.size.width,
      height: options.size.height,
      facts: options.facts,
    });
    this.buffer = new EventBuffer<JobFeedItem>(options.flushMs, (items) => this.store.apply(items), options.clock);
    this.unsubscribe = options.session.events.subscribe((item) => this.take(item.event));
  }

  get jobId(): string {
    return this.options.job.id;
  }

  /** Stops listening; what is pending is dropped. */
  dispose(): void {
    this.unsubscribe();
    this.buffer.dispose();
  }

  private take(event: SessionEvent): void {
    const id = this.options.job.id;
    const state = event.type === 'job_state' && event.job.id === id ? event.job.state : undefined;
    const own = event.type === 'job_event' && event.jobId === id;
    if (!state && !own) return;
    // A run starts (or a message resumes the job): its opening messages are written without events.
    if (state && !isEnded(state)) this.stale = true;
    const boundary = (own && event.event.type === 'turn_end') || (state !== undefined && isEnded(state));
    if (boundary && this.stale) {
      this.stale = false;
      this.buffer.push({ kind: 'reset', transcript: this.read(state === undefined) });
      return;
    }
    this.buffer.push({ kind: 'event', event });
  }

  private read(running: boolean) {
    const { session, job } = this.options;
    const history = session.jobHistory?.(job.id, { running }) ?? { messages: [], pending: [] };
    return jobTranscript(job.id, history, { running, fork: job.mode === 'fork', root: session.root, jobs: this.options.jobs() });
  }
}
