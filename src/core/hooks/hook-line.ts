import type { LoopEvent } from '../loop/events.js';
import { oneLine } from '../text.js';

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
