import type { Message, RateLimitEvent, RetryEvent, StopReason, Usage } from '../providers/types.js';

// The user's hooks are run above the loop (hooks/); what their events say is defined here, with
// the other events, so the loop and the front ends need nothing from above.

/** The events outrider runs hooks for. */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'SessionStart',
  'Notification',
  'PreCompact',
  'SessionEnd',
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/** What one run came to, in a word: the `outcome` of its `hook` event. */
export type HookOutcome = 'ok' | 'stopped' | 'blocked' | 'denied' | 'asked' | 'allowed' | 'context' | 'warning';

/** Why a run ended. */
export type StopCause =
  | { kind: 'completed' }
  | { kind: 'aborted' }
  | { kind: 'limit'; limit: 'maxTurns' | 'maxTotalTokens' | 'maxDuration' | 'maxToolCalls' | 'repeatedFailure'; detail: string }
  | { kind: 'error'; message: string }
  /** A hook ended it: `continue: false`, or a UserPromptSubmit hook blocked the prompt. */
  | { kind: 'hook'; event: HookEventName; reason: string };

/** What `agentLoop` yields: one run of model calls and tool calls (the parent's or a child's). */
export type LoopEvent =
  | { type: 'turn_start'; turn: number }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'message_end'; message: Message; stopReason: StopReason }
  | RetryEvent
  /** The model call waits at the provider's rate-limit gate, or goes on (providers/rate-limit-gate.ts). */
  | RateLimitEvent
  | { type: 'tool_start'; id: string; name: string; label: string; args: unknown }
  | { type: 'tool_update'; id: string; name: string; text: string }
  | { type: 'tool_end'; id: string; name: string; content: string; isError: boolean }
  | { type: 'usage'; usage: Usage; total: Usage }
  /** A message injected at a step boundary (e.g. the sub-agent completion notice). */
  | { type: 'injected'; message: Message }
  | { type: 'compact'; removedMessages: number; summaryChars: number }
  | { type: 'notice'; level: 'info' | 'warn'; text: string }
  /**
   * One hook command finished: what it came to (`blocked`, `denied`, `warning`, …, or `ok`),
   * its reason or message, and the tool call it was about (PreToolUse, PostToolUse).
   */
  | {
      type: 'hook';
      event: HookEventName;
      command: string;
      outcome: HookOutcome;
      text?: string;
      /** Its `systemMessage`, for the user. */
      message?: string;
      tool?: { id: string; name: string };
    }
  | { type: 'turn_end'; turn: number }
  | { type: 'run_end'; cause: StopCause };
