import {
  compareJobIds,
  isEnded,
  type Job,
  kindOf,
  type LoopEvent,
  oneLine,
  type SendResult,
  type SessionEvent,
  type StoredJob,
} from '../../core/index.js';
import { stateLabel } from './job-status.js';
import { type TailLine, TAIL_LINES, closeCall, fromUser, messageLine, tailFromMessages } from './job-tail.js';
import { toolAction } from './tool-text.js';

export { TAIL_LINES } from './job-tail.js';

/** What a job is doing now, as its events tell it. */
export type Activity =
  | { kind: 'queued' }
  | { kind: 'starting' }
  | { kind: 'thinking' }
  /** The rolling tail of the text it streams. */
  | { kind: 'writing'; tail: string }
  | { kind: 'tool'; name: string; label: string; args?: unknown }
  /** Its model call waits at the provider's rate-limit gate: until `until` (the pause's end), or for a place. */
  | { kind: 'rate_limit'; until?: number }
  | { kind: 'ended' };

/** One job as the UI knows it: the manager's last snapshot, kept current by the job's own events. */
export interface JobView {
  job: Job;
  activity: Activity;
  /** The latest lines of its conversation (`assistant: …`, one folded line per tool call), for /agents. */
  tail: readonly TailLine[];
  /** Ended done or error and not yet delivered to the parent model. */
  owed: boolean;
  /** How the parent heard of it: it woke the idle parent, came with a notice, or the model polled it. */
  delivery?: 'woke' | 'notice' | 'poll';
  /** Messages it got from the user or the parent (read, or joined to its task or resumed history). */
  messages?: number;
  /** The user's messages waiting in its inbox for its next step. */
  unread?: number;
}

/** What the user's message to a job did (the UI's own record of `send`'s answer, in order with the events). */
export interface SentMessage {
  jobId: string;
  text: string;
  kind: SendResult['kind'];
}

/** Every job of the session by id, derived only from the session's events (and, for a resumed session, the store). */
export type JobsState = ReadonlyMap<string, JobView>;

const STREAM_TAIL = 200;

export const noJobs: JobsState = new Map();

/** The jobs of a resumed session's earlier runs: finished, and owed to nobody. */
export function jobsFromStore(stored: readonly StoredJob[]): JobsState {
  const jobs = new Map<string, JobView>();
  for (const { job, messages } of stored) {
    jobs.set(job.id, { job, activity: { kind: 'ended' }, tail: tailFromMessages(messages), owed: false });
  }
  return jobs;
}

/**
 * The user's message reached a job. In its inbox it waits for the job's next step (its
 * `injected` event shows it then); added to a queued job's task, or resuming an ended job, it
 * produces no event of the job's own, so its line is added here.
 */
export function applySent(jobs: JobsState, sent: SentMessage): JobsState {
  const view = jobs.get(sent.jobId);
  if (!view) return jobs;
  if (sent.kind === 'inbox') return withJob(jobs, { ...view, unread: (view.unread ?? 0) + 1 });
  const line = `message from you${sent.kind === 'task' ? ' (added to its task)' : ''}: ${oneLine(sent.text)}`;
  return withJob(jobs, { ...withTail(view, line), messages: (view.messages ?? 0) + 1 });
}

/** Applies one session event; events that are not about jobs leave the state as it is. */
export function applyJobEvent(jobs: JobsState, event: SessionEvent): JobsState {
  switch (event.type) {
    case 'job_state': {
      const { job } = event;
      const before = jobs.get(job.id);
      const view: JobView = {
        ...before,
        job,
        activity: activityOnState(job.state, before?.activity),
        tail: before?.tail ?? [],
        owed: job.state === 'done' || job.state === 'error',
        delivery: undefined,
      };
      // A run that ends between two steps never reads what waits in its inbox: say so, as the user would want to resend it.
      const unread = before?.unread ?? 0;
      if (!isEnded(job.state) || unread === 0) return withJob(jobs, view);
      const lost = `${unread === 1 ? 'your message was' : `${unread} of your messages were`} not read before it ended: send again to resume it`;
      return withJob(jobs, { ...withTail(view, lost), unread: 0 });
    }
    case 'job_event': {
      const before = jobs.get(event.jobId);
      if (!before || isEnded(before.job.state)) return jobs;
      // The counters are the manager's, published with the event: the UI never counts them again.
      const counted = { ...before, job: { ...before.job, ...event.counters } };
      return withJob(jobs, applyChildEvent(counted, event.event));
    }
    case 'job_delivered':
      return updateJobs(jobs, event.jobIds, (view) =>
        view.owed ? { ...view, owed: false, delivery: view.delivery === 'woke' ? 'woke' : event.via } : view,
      );
    case 'submit':
      // A turn without a prompt is a wake: it carries every completion still owed.
      return event.prompt === undefined ? updateJobs(jobs, owedJobs(jobs), (view) => ({ ...view, delivery: 'woke' })) : jobs;
    default:
      return jobs;
  }
}

/** A state change resets what a job is doing, except that a running job keeps its last activity. */
function activityOnState(state: Job['state'], before: Activity | undefined): Activity {
  if (isEnded(state)) return { kind: 'ended' };
  if (state === 'queued') return { kind: 'queued' };
  return before && before.kind !== 'queued' && before.kind !== 'ended' ? before : { kind: 'starting' };
}

/** A child's own event moves its activity and tail. */
function applyChildEvent(view: JobView, event: LoopEvent): JobView {
  const { job } = view;
  switch (event.type) {
    case 'turn_start':
      return { ...view, activity: { kind: 'thinking' } };
    case 'text_delta': {
      const previous = view.activity.kind === 'writing' ? view.activity.tail : '';
      return { ...view, activity: { kind: 'writing', tail: (previous + event.text).slice(-STREAM_TAIL) } };
    }
    case 'tool_start':
      return {
        ...withTail(view, { call: event.id, name: event.name, args: event.args, label: event.label }),
        activity: { kind: 'tool', name: event.name, label: event.label, args: event.args },
      };
    case 'tool_update':
      // A background shell's output: its row shows the command and its last line.
      if (kindOf(job) !== 'shell') return view;
      return {
        ...view,
        job: { ...job, lastLine: event.text },
        activity: { kind: 'tool', name: oneLine(job.task, 40), label: `› ${event.text}` },
      };
    case 'message_end': {
      const line = messageLine(event.message);
      return line === undefined ? view : withTail(view, line);
    }
    case 'tool_end':
      return { ...view, tail: closeCall(view.tail, event) };
    case 'rate_limit':
      if (!event.waiting) return { ...view, activity: { kind: 'thinking' } };
      return { ...view, activity: { kind: 'rate_limit', ...(event.until !== undefined ? { until: event.until } : {}) } };
    case 'injected': {
      const line = messageLine(event.message);
      const next = line === undefined ? view : withTail(view, line);
      if (!line?.startsWith('message from ')) return next;
      const unread = fromUser(event.message) ? Math.max(0, (view.unread ?? 0) - 1) : view.unread;
      return { ...next, messages: (view.messages ?? 0) + 1, unread };
    }
    default:
      return view;
  }
}

function withTail(view: JobView, line: TailLine): JobView {
  return { ...view, tail: [...view.tail, line].slice(-TAIL_LINES) };
}

function updateJobs(jobs: JobsState, ids: readonly string[], change: (view: JobView) => JobView): JobsState {
  let next: Map<string, JobView> | undefined;
  for (const id of ids) {
    const view = jobs.get(id);
    if (!view) continue;
    const changed = change(view);
    if (changed === view) continue;
    next ??= new Map(jobs);
    next.set(id, changed);
  }
  return next ?? jobs;
}

function withJob(jobs: JobsState, view: JobView): JobsState {
  const next = new Map(jobs);
  next.set(view.job.id, view);
  return next;
}

/** Every job in tree order (nested jobs under their owner), sub-agents before shells. */
export function orderedJobs(jobs: JobsState): JobView[] {
  return [...jobs.values()].sort((a, b) => compareJobIds(a.job.id, b.job.id));
}

/** Jobs still queued or running, by job number: the activity rows. */
export function activeJobs(jobs: JobsState): JobView[] {
  return orderedJobs(jobs).filter((view) => !isEnded(view.job.state));
}

/** Ids of jobs whose completion the parent model has not heard of yet. */
export function owedJobs(jobs: JobsState): string[] {
  return orderedJobs(jobs)
    .filter((view) => view.owed)
    .map((view) => view.job.id);
}

/** `grep "auth" src/`, `writing: …the tail`, `thinking…`: one line saying what the job does now (paths relative to `root`). */
export function describeActivity(activity: Activity, state: Job['state'], root?: string): string {
  switch (activity.kind) {
    case 'queued':
      return 'queued';
    case 'starting':
      return 'starting…';
    case 'thinking':
      return 'thinking…';
    case 'writing':
      return `writing: ${oneLine(activity.tail, 60, 'tail')}`;
    case 'tool':
      return toolAction(activity.name, activity.args, activity.label, root);
    case 'rate_limit':
      return 'waiting for rate limit';
    case 'ended':
      return stateLabel(state);
    default: {
      const unhandled: never = activity;
      return String(unhandled);
    }
  }
}
