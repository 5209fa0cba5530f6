import type { JobState } from '../loop/events.js';

/** The least a status line needs to know of a job. */
export interface JobTiming {
  state: JobState;
  startedAt?: number;
}

/** `1m20s`, `45s`, `2h03m`: short elapsed times for rows and tool results. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** `18k`, `1.2M`, `950`: token counts for rows. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${n < 10_000 ? (n / 1000).toFixed(1) : Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/**
 * The status segment: `subagents: 2 running (oldest 1m20s), 1 queued, 3 done`, and a short
 * form for narrow terminals (`agents 2▶ 1… 3✓`). Empty when there are no jobs.
 */
export function statusSegment(jobs: JobTiming[], now: number): { text: string; short: string } {
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
