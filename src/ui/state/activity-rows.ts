import { formatDuration, type Job, oneLine } from '../../core/index.js';
import { cutLine, lineLength, plural, rateLimitText } from '../format.js';
import { type JobView, describeActivity } from './jobs.js';
import { elapsedOf, figureParts } from './job-status.js';

const GAP = '  ';
const SEP = ' · ';
/** The action keeps at least this many cells before figures give way to it. */
const MIN_ACTION = 24;

export interface RowOptions {
  /** Replaces the activity (a job waiting for the user's approval). */
  instead?: string;
  /** The job's cost so far, when the price is known. */
  cost?: number;
  /** The workspace root: paths in the activity are shown relative to it. */
  root?: string;
}

/**
 * One row on one line of at most `width` cells: `sub-2  grep "auth" src/ · 1m20s · 12 tools ·
 * 18k tok · $0.04 · effort high` (`· 1 message waiting` after the time while a message of the user's waits).
 * When it does not fit, figures drop from the end first: id, state and action stay (the action cut last).
 */
export function formatRow(view: JobView, now: number, width: number, options: RowOptions = {}): string {
  const { job } = view;
  const head = rowHead(job);
  // What it got from the user or the parent, right after its time: `1 message waiting` until its next step reads it.
  const got = view.unread
    ? `${plural(view.unread, 'message')} waiting`
    : view.messages
      ? plural(view.messages, 'message')
      : undefined;
  if (job.state === 'queued') {
    // A job started with `after` waits for those of its jobs still unfinished, taking no slot.
    const state = job.waitingFor?.length ? `waiting for ${job.waitingFor.join(', ')}` : 'queued';
    return cutLine([`${head}${state}`, elapsedOf(job, now), ...(got ? [got] : [])].join(SEP), width);
  }
  // A shell that has printed nothing yet shows its command.
  const shellCommand = job.kind === 'shell' && view.activity.kind !== 'tool' ? job.task : undefined;
  // A job waiting for a rate limit counts the pause down (`waiting for rate limit 12s`); it is not stalled.
  const paused = view.activity.kind === 'rate_limit' ? rateLimitText(view.activity.until, now) : undefined;
  const idle = options.instead === undefined && paused === undefined ? stalledFor(job, now) : undefined;
  const activity = shellCommand ?? paused ?? describeActivity(view.activity, job.state, options.root);
  const action = oneLine(options.instead ?? (idle === undefined ? activity : `stalled ${formatDuration(idle)}: ${activity}`));
  const [elapsed, ...rest] = figureParts(job, now, options.cost);
  // A job's reasoning effort last: the first figure to give way.
  const figures = [elapsed!, ...(got ? [got] : []), ...rest, ...(job.effort ? [`effort ${job.effort}`] : [])];
  for (let keep = figures.length; keep > 0; keep -= 1) {
    const tail = `${SEP}${figures.slice(0, keep).join(SEP)}`;
    const room = width - lineLength(head) - lineLength(tail);
    if (room >= Math.min(lineLength(action), MIN_ACTION)) {
      const row = `${head}${cutLine(action, room)}${tail}`;
      return job.kind === 'shell' ? row : withTask(row, job.task, width);
    }
  }
  return cutLine(`${head}${action}`, width);
}

/** A row's start: its id, indented by depth; a queue job names the worker running it (`sub-3 @ build-2`). */
export function rowHead(job: Pick<Job, 'id' | 'depth' | 'worker'>): string {
  return `${'  '.repeat((job.depth ?? 1) - 1)}${job.id}${job.worker ? ` @ ${job.worker}` : ''}${GAP}`;
}

/** The rows shown in `maxLines`: all of them, or all but what the last line sums up (`+5 more running`). */
export function shownRows<T>(rows: readonly T[], maxLines = Number.MAX_SAFE_INTEGER): readonly T[] {
  if (maxLines <= 0) return [];
  return rows.length > maxLines ? rows.slice(0, maxLines - 1) : rows;
}

/** A running sub-agent with no event for this long reads `stalled 1m20s` (in the warning colour). */
export const STALL_ROW_MS = 60_000;

/** How long a running sub-agent has gone without an event, once that is a stall; else undefined. */
export function stalledFor(job: Pick<Job, 'state' | 'kind' | 'lastEventAt'>, now: number): number | undefined {
  if (job.state !== 'running' || job.kind === 'shell' || job.lastEventAt === undefined) return undefined;
  const idle = now - job.lastEventAt;
  return idle >= STALL_ROW_MS ? idle : undefined;
}

/** The task a row ends with, in what room is left (`… · 0 tok · map the config loader`): which job is which. */
function withTask(row: string, task: string, width: number): string {
  const room = width - lineLength(row) - lineLength(SEP);
  return room >= MIN_TASK ? `${row}${SEP}${cutLine(oneLine(task), room)}` : row;
}

/** A task gets its place at the end of a row only with this many cells for it. */
const MIN_TASK = 10;
