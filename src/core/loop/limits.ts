import { type Usage, usageTokens } from '../providers/types.js';
import type { StopCause } from './events.js';

/** Bounds on one run of the loop; any may be omitted. */
export interface Limits {
  maxTurns?: number;
  maxTotalTokens?: number;
  /** Milliseconds of wall time. */
  maxDuration?: number;
  /** The same failing calls this many times in a row stop the run (default 5). */
  maxRepeatedFailures?: number;
  /** Tool calls the run may make; a response asking for more has those answered "not run", and the run stops there. */
  maxToolCalls?: number;
}

export interface RunProgress {
  turns: number;
  usage: Usage;
  startedAt: number;
  now: number;
}

/** Every token the run was billed for, cached or not. */
export function totalTokens(usage: Usage): number {
  return usageTokens(usage);
}

/** The limit a run has reached before its next model call, if any. */
export function reachedLimit(limits: Limits, progress: RunProgress): StopCause | undefined {
  if (limits.maxTurns !== undefined && progress.turns >= limits.maxTurns) {
    return { kind: 'limit', limit: 'maxTurns', detail: `reached the limit of ${limits.maxTurns} turns` };
  }
  const tokens = totalTokens(progress.usage);
  if (limits.maxTotalTokens !== undefined && tokens >= limits.maxTotalTokens) {
    return {
      kind: 'limit',
      limit: 'maxTotalTokens',
      detail: `used ${tokens} tokens, over the limit of ${limits.maxTotalTokens}`,
    };
  }
  if (limits.maxDuration !== undefined && progress.now - progress.startedAt >= limits.maxDuration) {
    return durationLimit(limits.maxDuration);
  }
  return undefined;
}

/** The model asked for more tool calls than the limit leaves (checked by the loop as it answers them). */
export function toolCallLimit(maxToolCalls: number): StopCause {
  return { kind: 'limit', limit: 'maxToolCalls', detail: `asked for more than the limit of ${maxToolCalls} tool calls` };
}

export function durationLimit(maxDuration: number): StopCause {
  return { kind: 'limit', limit: 'maxDuration', detail: `ran past the limit of ${Math.round(maxDuration / 1000)}s` };
}

/** How to lift a limit, for the line that says a run stopped at it. */
export function limitHint(limit: 'maxTurns' | 'maxTotalTokens' | 'maxDuration' | 'maxToolCalls' | 'repeatedFailure'): string {
  switch (limit) {
    case 'maxTurns':
      return ' (raise it with --max-turns or maxTurns in settings)';
    case 'maxTotalTokens':
    case 'maxDuration':
    case 'maxToolCalls':
      return ' (raise it in settings)';
    case 'repeatedFailure':
      return ' (say what to do differently, or fix what makes the call fail, then go on)';
  }
}
