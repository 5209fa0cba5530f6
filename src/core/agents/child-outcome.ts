import type { StopCause } from '../loop/events.js';
import type { Limits } from '../loop/limits.js';
import { formatDuration, oneLine } from '../platform/text.js';
import type { Message } from '../providers/types.js';
import { NO_TEXT_OUTPUT } from '../jobs/job-texts.js';

/** The limits of one child run, whole (a nudge's run gets what is left of them). */
export type RunLimits = Required<Omit<Limits, 'maxRepeatedFailures' | 'maxToolCalls'>> & Pick<Limits, 'maxToolCalls'>;

/** Most tool calls a budget stop names; earlier ones are counted. */
const NAMED_CALLS = 20;

/**
 * Why a run that stopped at one of its caps stopped, in the budget's words
 * (`budget: turns reached (10 of 10)`); undefined for any other end. A run the manager stopped
 * at a cap (an owner's or the session's, judged as usage arrived) carries the reason on its signal.
 */
export function budgetStop(
  cause: StopCause,
  ran: { limits: RunLimits; tokens: number; toolCalls: number },
  signal: AbortSignal,
): string | undefined {
  const { limits } = ran;
  if (cause.kind === 'aborted') {
    const reason: unknown = signal.reason;
    return reason instanceof Error && reason.message.startsWith('budget:') ? reason.message : undefined;
  }
  if (cause.kind !== 'limit') return undefined;
  switch (cause.limit) {
    case 'maxTurns':
      return `budget: turns reached (${limits.maxTurns} of ${limits.maxTurns})`;
    case 'maxTotalTokens':
      return `budget: tokens reached (${ran.tokens} of ${limits.maxTotalTokens})`;
    case 'maxDuration':
      return `budget: time reached (${formatDuration(limits.maxDuration)})`;
    case 'maxToolCalls':
      return `budget: tool calls reached (${ran.toolCalls} of ${limits.maxToolCalls ?? ran.toolCalls}; the calls past it were not run)`;
    case 'repeatedFailure':
      return undefined;
  }
}

/**
 * A job stopped at a cap: its last text, then the tool calls it made (their results are in its
 * transcript), so its owner knows what it found and need not redo it.
 */
export function withToolsNamed(text: string, made: readonly Message[]): string {
  const calls = made.flatMap((message) =>
    message.role === 'assistant' ? message.content.filter((block) => block.type === 'tool_use') : [],
  );
  if (calls.length === 0) return text;
  const named = calls.slice(-NAMED_CALLS).map((call) => `${call.name}${argumentHint(call.input)}`);
  const earlier = calls.length > NAMED_CALLS ? ` (and ${calls.length - NAMED_CALLS} earlier)` : '';
  const list = `Tool calls it made before the cap${earlier}: ${named.join(' · ')}`;
  return text === NO_TEXT_OUTPUT ? `${NO_TEXT_OUTPUT}\n${list}` : `${text}\n\n${list}`;
}

/** ` src/a.ts`: a call's first text argument, short. */
function argumentHint(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const first = Object.values(input as Record<string, unknown>).find((value) => typeof value === 'string' && value.trim() !== '');
  return typeof first === 'string' ? ` ${oneLine(first, 60)}` : '';
}
