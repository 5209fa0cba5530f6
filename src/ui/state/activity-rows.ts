import { cutLine, lineLength } from '../format.js';
import { oneLine } from '../../core/text.js';
import { type JobView, describeActivity } from './jobs.js';
import { jobFigures } from './job-status.js';

const GAP = '  ';
/** Below this many cells for the activity itself, the figures give way to it. */
const MIN_ACTIVITY = 12;

/**
 * One row on one line of at most `width` cells: `sub-2  <activity>  running 1m20s · …`.
 * The activity is cut first, so the figures stay readable on narrow terminals. `instead`
 * replaces the activity (a job waiting for the user's approval).
 */
export function formatRow(view: JobView, now: number, width: number, instead?: string): string {
  const { job } = view;
  // A shell that has printed nothing yet shows its command.
  const shellCommand = job.kind === 'shell' && view.activity.kind !== 'tool' ? job.task : undefined;
  const activity = oneLine(instead ?? shellCommand ?? describeActivity(view.activity, job.state));
  const head = `${'  '.repeat((job.depth ?? 1) - 1)}${job.id}${GAP}`;
  const tail = `${GAP}${jobFigures(job, now)}`;
  const room = width - lineLength(head) - lineLength(tail);
  if (room >= MIN_ACTIVITY) return `${head}${cutLine(activity, room)}${tail}`;
  return cutLine(`${head}${activity}${tail}`, width);
}
