import type { LoopEvent } from '../loop/events.js';
import { safeText } from '../platform/safe-text.js';
import { oneLine } from '../platform/text.js';

/**
 * The line a hook's outcome gets in the transcript and on headless stderr: `PreToolUse hook
 * blocked bash: …`. Undefined for a hook that ran and said nothing, and for one that ended
 * the run (the run's end says so). A hook's output may echo anything (the model's command):
 * control characters are escaped, so it cannot redraw the screen.
 */
export function hookLine(event: Extract<LoopEvent, { type: 'hook' }>): { level: 'info' | 'warn'; text: string } | undefined {
  const about = event.tool ? ` ${event.tool.name}` : '';
  const clean = (text: string, max: number) => safeText(oneLine(text, max));
  const why = event.text ? `: ${clean(event.text, 300)}` : '';
  const message = event.message ? ` (${clean(event.message, 200)})` : '';
  const head = `${event.event} hook`;
  switch (event.outcome) {
    case 'ok':
      return event.message ? { level: 'info', text: `${head}: ${clean(event.message, 300)}` } : undefined;
    case 'blocked':
      // The run's end names the blocked prompt.
      if (event.event === 'UserPromptSubmit') return undefined;
      if (event.event === 'Stop' || event.event === 'SubagentStop') {
        return { level: 'info', text: `${head} sent the agent back to work${why}${message}` };
      }
      if (event.event === 'PostToolUse') return { level: 'info', text: `${head} told the model about${about}${why}${message}` };
      return { level: 'warn', text: `${head} blocked${about}${why}${message}` };
    case 'denied':
      return { level: 'warn', text: `${head} denied${about}${why}${message}` };
    case 'asked':
      return { level: 'info', text: `${head} asks before${about}${why}${message}` };
    case 'allowed':
      return { level: 'info', text: `${head} allowed${about}${message}` };
    case 'stopped':
      // The run's end (or the job's error) names the hook and its reason.
      return undefined;
    case 'context':
      return { level: 'info', text: `${head} added context for the model${message}` };
    case 'warning':
      return { level: 'warn', text: `${head} ${JSON.stringify(clean(event.command, 60))} ${event.text ?? 'failed'}${message}` };
    default: {
      const unhandled: never = event.outcome;
      return { level: 'warn', text: String(unhandled) };
    }
  }
}
