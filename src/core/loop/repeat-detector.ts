import type { ToolResultBlock, ToolUseBlock } from '../providers/types.js';
import type { StopCause } from './events.js';

/** How many times in a row the same failing calls may be made before the run stops. */
export const DEFAULT_MAX_REPEATED_FAILURES = 5;

/** Where the detector stands: the last failing batch and how many times in a row it came. */
export interface RepeatState {
  signature?: string;
  count: number;
}

export const noRepeats: RepeatState = { count: 0 };

/**
 * A model stuck in a loop makes the same call with the same arguments, gets the same
 * error, and tries again (thousands of times, for as long as it is let). After each tool
 * batch: a batch whose every call failed, identical to the one before it, counts one more;
 * anything else starts over. Pure, so the loop keeps the state and the tests a table.
 */
export function afterBatch(
  state: RepeatState,
  calls: readonly ToolUseBlock[],
  results: readonly ToolResultBlock[],
  maxRepeats = DEFAULT_MAX_REPEATED_FAILURES,
): { state: RepeatState; stop?: StopCause } {
  const allFailed = results.length > 0 && results.every((r) => r.isError === true);
  if (!allFailed) return { state: noRepeats };
  const signature = JSON.stringify(calls.map((call) => [call.name, call.input]));
  const count = signature === state.signature ? state.count + 1 : 1;
  const next = { signature, count };
  if (count < maxRepeats) return { state: next };
  const first = calls[0]!;
  const args = JSON.stringify(first.input ?? {});
  const shown = args.length > 80 ? `${args.slice(0, 79)}…` : args;
  return {
    state: next,
    stop: {
      kind: 'limit',
      limit: 'repeatedFailure',
      detail: `the same call failed ${count} times in a row (${first.name} ${shown}): the model seems stuck, so the run stopped`,
    },
  };
}
