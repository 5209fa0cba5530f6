import type { Job } from '../../core/agents/job-manager.js';
import { formatDuration, formatTokens } from '../../core/agents/job-status.js';
import type { AgentEvent } from '../../core/loop/events.js';
import { totalTokens } from '../../core/loop/limits.js';
import { cutLine, lineLength, oneLine, plural } from '../format.js';

/** One activity row as the job manager keys it: `rank` is the job number. */
export interface ActivityRow {
  key: string;
  text: string;
  rank: number;
}

export type RowMap = ReadonlyMap<string, ActivityRow>;

/** Applies the `job_row` events of a batch: the last text per key wins, empty text removes the row. */
export function applyRowEvents(rows: RowMap, events: readonly AgentEvent[]): RowMap {
  let next: Map<string, ActivityRow> | undefined;
  for (const event of events) {
    if (event.type !== 'job_row') continue;
    next ??= new Map(rows);
    if (event.text === '') next.delete(event.key);
    else next.set(event.key, { key: event.key, text: event.text, rank: event.rank });
  }
  return next ?? rows;
}

/** Rows by job number, so a row keeps its place however its updates arrive. */
export function orderedRows(rows: RowMap): ActivityRow[] {
  return [...rows.values()].sort((a, b) => a.rank - b.rank || a.key.localeCompare(b.key));
}

/** `running 1m20s · 12 tools · 18k tok`: the figures a row ends with. */
export function jobFigures(job: Job, now: number): string {
  const since = job.state === 'queued' ? job.createdAt : (job.startedAt ?? job.createdAt);
  const until = job.endedAt ?? now;
  return `${job.state} ${formatDuration(until - since)} · ${plural(job.toolCalls, 'tool')} · ${formatTokens(totalTokens(job.usage))} tok`;
}

const GAP = '  ';
/** Below this many cells for the activity itself, the figures give way to it. */
const MIN_ACTIVITY = 12;

/**
 * One row on one line of at most `width` cells: `sub-2  <activity>  running 1m20s · …`.
 * The activity is cut first, so the figures stay readable on narrow terminals.
 */
export function formatRow(row: ActivityRow, job: Job | undefined, now: number, width: number): string {
  const activity = oneLine(row.text);
  const head = `${row.key}${GAP}`;
  const tail = job ? `${GAP}${jobFigures(job, now)}` : '';
  const room = width - lineLength(head) - lineLength(tail);
  if (tail && room >= MIN_ACTIVITY) return `${head}${cutLine(activity, room)}${tail}`;
  return cutLine(`${head}${activity}${tail}`, width);
}
