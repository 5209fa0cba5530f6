import { oneLine } from '../../core/index.js';
import { cutLine, lineLength, plural } from '../format.js';
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
 * 18k tok · $0.04` (`· 1 message waiting` after the time while a message of the user's waits).
 * When it does not fit, figures drop from the end first: id, state and action stay (the action cut last).
 */
export function formatRow(view: JobView, now: number, width: number, options: RowOptions = {}): string {
  const { job } = view;
  // A queue job names the worker running it: `sub-3 @ build-2`.
  const head = `${'  '.repeat((job.depth ?? 1) - 1)}${job.id}${job.worker ? ` @ ${job.worker}` : ''}${GAP}`;
  // What it got from the user or the parent, right after its time: `1 message waiting` until its next step reads it.
  const got = view.unread
    ? `${plural(view.unread, 'message')} waiting`
    : view.messages
      ? plural(view.messages, 'message')
      : undefined;
  if (job.state === 'queued') return cutLine([`${head}queued`, elapsedOf(job, now), ...(got ? [got] : [])].join(SEP), width);
  // A shell that has printed nothing yet shows its command.
  const shellCommand = job.kind === 'shell' && view.activity.kind !== 'tool' ? job.task : undefined;
  const action = oneLine(options.instead ?? shellCommand ?? describeActivity(view.activity, job.state, options.root));
  const [elapsed, ...rest] = figureParts(job, now, options.cost);
  const figures = [elapsed!, ...(got ? [got] : []), ...rest];
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

/** The task a row ends with, in what room is left (`… · 0 tok · map the config loader`): which job is which. */
function withTask(row: string, task: string, width: number): string {
  const room = width - lineLength(row) - lineLength(SEP);
  return room >= MIN_TASK ? `${row}${SEP}${cutLine(oneLine(task), room)}` : row;
}

/** A task gets its place at the end of a row only with this many cells for it. */
const MIN_TASK = 10;
