import { cells, cutCells } from './text-cells.js';
import { formatDuration, hookStopText, imageLabel, type ImageSummary, limitHint, type StopCause } from '../core/index.js';

/** Cuts `text` to at most `width` terminal cells, ending with `…` when it was cut (see text-cells.ts). */
export function cutLine(text: string, width: number): string {
  return cutCells(text, width);
}

/** Display width in terminal cells. */
export function lineLength(text: string): number {
  return cells(text);
}

/** `1 tool`, `12 tools`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The first non-empty line of a tool result, and how many lines follow it. */
export function resultSummary(content: string, isError: boolean): string {
  const lines = content.split('\n').filter((line) => line.trim() !== '');
  const first = lines[0]?.trim() ?? '(no output)';
  const more = lines.length > 1 ? ` (+${plural(lines.length - 1, 'line')})` : '';
  return `${isError ? 'error: ' : ''}${first}${more}`;
}

/** `retrying in 2.1s (429 rate limited, attempt 1/4)`. */
export function retryText(event: {
  attempt: number;
  maxRetries: number;
  delayMs: number;
  reason: string;
  rateLimited?: boolean;
}): string {
  const seconds = (event.delayMs / 1000).toFixed(1);
  // A rate limit spends no retry: it pauses every call to the provider, the sub-agents' too.
  if (event.rateLimited) return `${event.reason}: calls to this provider pause for ${seconds}s`;
  return `retrying in ${seconds}s (${event.reason}, attempt ${event.attempt}/${event.maxRetries})`;
}

/**
 * `waiting for rate limit 12s`: the seconds left of the provider's pause, counted down on the app's
 * clock (rounded up, so it never reads 0s while it waits); without a pause, a wait for a place among
 * the fewer calls let through after a limit.
 */
export function rateLimitText(until: number | undefined, now: number): string {
  if (until === undefined || until <= now) return 'waiting for rate limit';
  return `waiting for rate limit ${formatDuration(Math.ceil((until - now) / 1000) * 1000)}`;
}

/** What the user reads when a turn did not complete; undefined when it did. `running`: sub-agents still running. */
export function causeText(cause: StopCause, running = 0): string | undefined {
  switch (cause.kind) {
    case 'completed':
      return undefined;
    case 'aborted':
      return running > 0
        ? `interrupted (${running === 1 ? 'the sub-agent keeps' : `${running} sub-agents keep`} running)`
        : 'interrupted';
    case 'limit':
      return `stopped: ${cause.detail}${limitHint(cause.limit)}`;
    case 'error':
      return `error: ${cause.message}`;
    case 'hook':
      return hookStopText(cause);
    default: {
      const unhandled: never = cause;
      return String(unhandled);
    }
  }
}

/** A prompt as the transcript shows it: its text, then a line per image (`[image: 34.0 KB png]`). */
export function withImages(text: string, images: readonly ImageSummary[]): string {
  if (images.length === 0) return text;
  const labels = images.map(imageLabel).join('\n');
  return text.trim() === '' ? labels : `${text}\n${labels}`;
}
