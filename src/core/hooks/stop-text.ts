import type { HookEventName } from './hook-settings.js';

/** What the user reads when a hook ended a run: `a UserPromptSubmit hook blocked the prompt: …`. */
export function hookStopText(cause: { event: HookEventName; reason: string }): string {
  const what = cause.event === 'UserPromptSubmit' ? 'blocked the prompt' : 'stopped the agent';
  return `a ${cause.event} hook ${what}: ${cause.reason}`;
}
