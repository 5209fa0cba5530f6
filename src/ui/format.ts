import { hookStopText } from '../core/hooks/stop-text.js';
import type { LoopEvent, StopCause } from '../core/loop/events.js';
import { limitHint } from '../core/loop/limits.js';
import { oneLine } from '../core/text.js';

/**
 * Cuts `text` to at most `width` terminal cells, ending with `…` when it was cut. Counts
 * code points, so a surrogate pair is never split; the renderer truncates again as a
 * safety net for double-width characters.
 */
export function cutLine(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = Array.from(text);
  if (chars.length <= width) return text;
  if (width === 1) return '…';
  return `${chars.slice(0, width - 1).join('')}…`;
}

/** Display length in code points (see `cutLine`). */
export function lineLength(text: string): number {
  return Array.from(text).length;
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
export function retryText(event: { attempt: number; maxRetries: number; delayMs: number; reason: string }): string {
  return `retrying in ${(event.delayMs / 1000).toFixed(1)}s (${event.reason}, attempt ${event.attempt}/${event.maxRetries})`;
}

/** What the user reads when a turn did not complete; undefined when it did. */
export function causeText(cause: StopCause): string | undefined {
  switch (cause.kind) {
    case 'completed':
      return undefined;
    case 'aborted':
      return 'interrupted (sub-agents keep running)';
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

/**
 * The line a hook's outcome gets in the transcript: `PreToolUse hook blocked bash: …`;
 * undefined for a hook that ran and said nothing.
 */
export function hookLine(event: Extract<LoopEvent, { type: 'hook' }>): { level: 'info' | 'warn'; text: string } | undefined {
  const about = event.tool ? ` ${event.tool.name}` : '';
  const why = event.text ? `: ${oneLine(event.text, 300)}` : '';
  const message = event.message ? ` (${oneLine(event.message, 200)})` : '';
  const head = `${event.event} hook`;
  switch (event.outcome) {
    case 'ok':
      return event.message ? { level: 'info', text: `${head}: ${oneLine(event.message, 300)}` } : undefined;
    case 'blocked':
      if (event.event === 'Stop' || event.event === 'SubagentStop') {
        return { level: 'info', text: `${head} sent the agent back to work${why}${message}` };
      }
      if (event.event === 'PostToolUse') return { level: 'info', text: `${head} told the model about${about}${why}${message}` };
      return {
        level: 'warn',
        text: `${head} blocked${about || (event.event === 'UserPromptSubmit' ? ' the prompt' : '')}${why}${message}`,
      };
    case 'denied':
      return { level: 'warn', text: `${head} denied${about}${why}${message}` };
    case 'asked':
      return { level: 'info', text: `${head} asks before${about}${why}${message}` };
    case 'allowed':
      return { level: 'info', text: `${head} allowed${about}${message}` };
    case 'stopped':
      return { level: 'warn', text: `${head} stopped the agent${why}${message}` };
    case 'context':
      return { level: 'info', text: `${head} added context for the model${message}` };
    case 'warning':
      return { level: 'warn', text: `${head} ${JSON.stringify(oneLine(event.command, 60))} ${event.text ?? 'failed'}${message}` };
    default: {
      const unhandled: never = event.outcome;
      return { level: 'warn', text: String(unhandled) };
    }
  }
}
