import type { LoopEvent } from './events.js';

// What the loop asks the user's hooks (settings `hooks`, run by core/hooks): around each tool
// call, and when the model is done. The loop knows only these answers, not how they are found.

/** One call as hooks see it, after its arguments were validated. */
export interface HookedCall {
  id: string;
  name: string;
  args: unknown;
}

/** PreToolUse's answer. `permission` goes to the gate, which decides what it may change (hook-decision.ts). */
export interface BeforeToolAnswer {
  /** Refuse the call; the model reads this as the tool result. */
  block?: string;
  permission?: { decision: 'allow' | 'ask'; reason: string };
  /** End the run after this batch (`continue: false`); for the user. */
  stop?: string;
}

/** PostToolUse's answer. */
export interface AfterToolAnswer {
  /** Added to the tool result the model reads (exit code 2, `decision: "block"`, `additionalContext`). */
  feedback?: string;
  stop?: string;
}

/** Stop's answer. */
export interface StopAnswer {
  /** Keep going: this is the model's next user message. */
  continueWith?: string;
  stop?: string;
}

/** The hooks a loop runs; each publishes its own `hook` events through `emit`. */
export interface LoopHooks {
  beforeTool?(call: HookedCall, signal: AbortSignal, emit: (event: LoopEvent) => void): Promise<BeforeToolAnswer>;
  afterTool?(
    call: HookedCall,
    result: { content: string; isError: boolean },
    signal: AbortSignal,
    emit: (event: LoopEvent) => void,
  ): Promise<AfterToolAnswer>;
  /** `stopHookActive`: the run is already going on because a Stop hook said so. */
  onStop?(state: { stopHookActive: boolean }, signal: AbortSignal, emit: (event: LoopEvent) => void): Promise<StopAnswer>;
}

/** How many times in a row Stop hooks may send the model back to work in one run. */
export const MAX_STOP_HOOK_CONTINUES = 5;
