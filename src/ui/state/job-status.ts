import type { Job, JobState } from '../../core/agents/job-manager.js';
import { totalTokens } from '../../core/loop/limits.js';
import { formatDuration, formatTokens, oneLine } from '../../core/text.js';
import { plural } from '../format.js';

/** Time since a job started (or was queued), frozen when it ended. */
export function elapsedOf(job: Job, now: number): string {
  const since = job.state === 'queued' ? job.createdAt : (job.startedAt ?? job.createdAt);
  return formatDuration((job.endedAt ?? now) - since);
}

/** `running 1m20s · 12 tools · 18k tok`: the figures a row ends with. */
export function jobFigures(job: Job, now: number): string {
  if (job.kind === 'shell') return `${job.state} ${elapsedOf(job, now)}${job.error ? ` · ${job.error}` : ''}`;
  return `${job.state} ${elapsedOf(job, now)} · ${plural(job.toolCalls, 'tool')} · ${formatTokens(totalTokens(job.usage))} tok`;
}

/** The transcript line when a job ends done or error. */
export function completionLine(job: Job): string {
  return job.state === 'done' ? `${job.id} finished: ${oneLine(job.task, 80)}` : `${job.id} failed: ${job.error ?? 'error'}`;
}

/**
 * The status segment: `subagents: 2 running (oldest 1m20s), 1 queued, 3 done`, and a short
 * form for narrow terminals (`agents 2▶ 1… 3✓`). Empty when there are no jobs.
 */
export function statusSegment(jobs: readonly Pick<Job, 'state' | 'startedAt'>[], now: number): { text: string; short: string } {
  if (jobs.length === 0) return { text: '', short: '' };
  const count = (state: JobState) => jobs.filter((j) => j.state === state).length;
  const running = jobs.filter((j) => j.state === 'running');
  const oldest = Math.min(...running.map((j) => j.startedAt ?? now));
  const parts: string[] = [];
  const shortParts: string[] = [];
  if (running.length) {
    parts.push(`${running.length} running (oldest ${formatDuration(now - oldest)})`);
    shortParts.push(`${running.length}▶`);
  }
  const labels: [JobState, string, string][] = [
    ['queued', 'queued', '…'],
    ['done', 'done', '✓'],
    ['error', 'failed', '✗'],
    ['aborted', 'stopped', '■'],
  ];
  for (const [state, word, mark] of labels) {
    const n = count(state);
    if (n) {
      parts.push(`${n} ${word}`);
      shortParts.push(`${n}${mark}`);
    }
  }
  return { text: `subagents: ${parts.join(', ')}`, short: `agents ${shortParts.join(' ')}` };
}
