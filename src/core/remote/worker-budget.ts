/**
 * The worker's own hold on a job's spending: the session stops a job past its cap, and so does
 * the worker, so a job whose session went away cannot overspend. Usage is counted from the
 * child's `usage` events, as the session's ledger counts it; the reasons read as the session's.
 */
import type { LoopEvent } from '../loop/events.js';
import { type Usage, addUsage, emptyUsage, usageTokens } from '../providers/types.js';
import type { RemoteCaps } from './payload.js';

/** Watches a job's usage; calls `reached` once, with the budget reason, when a cap is hit. */
export function watchBudget(
  caps: RemoteCaps,
  model: string | undefined,
  costOf: ((usage: Usage, model: string | undefined) => number) | undefined,
  reached: (reason: string) => void,
): { see(event: LoopEvent): void; used(): Usage } {
  let used = emptyUsage();
  let over = false;
  return {
    see(event) {
      if (event.type !== 'usage' || over) return;
      used = addUsage(used, event.usage);
      const tokens = usageTokens(used);
      if (caps.maxTokens !== undefined && tokens >= caps.maxTokens) {
        over = true;
        reached(`budget: tokens reached (${tokens} of ${caps.maxTokens})`);
        return;
      }
      const cost = caps.maxCostUsd !== undefined ? costOf?.(used, model) : undefined;
      if (cost !== undefined && caps.maxCostUsd !== undefined && cost >= caps.maxCostUsd) {
        over = true;
        reached(`budget: cost reached ($${cost.toFixed(2)} of $${caps.maxCostUsd.toFixed(2)})`);
      }
    },
    used: () => used,
  };
}
