/** Small text helpers shared by tool results, poll texts and both front ends. */

/**
 * Whitespace (newlines included) folded to single spaces. With `max`, cut to that many
 * characters from the start, or from the end for a rolling tail, marked with `…`.
 */
export function oneLine(text: string, max?: number, keep: 'head' | 'tail' = 'head'): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (max === undefined || line.length <= max) return line;
  return keep === 'head' ? `${line.slice(0, max - 1)}…` : `…${line.slice(-(max - 1))}`;
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

/** A byte count for people: `512 B`, `3.4 KB`, `12.0 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
