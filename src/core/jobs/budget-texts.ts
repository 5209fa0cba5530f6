import { formatDuration, formatTokens } from '../platform/text.js';
import type { JobBudget } from './job-types.js';

/** Dollars as the budget words them: four decimals under $1. */
export function dollars(amount: number): string {
  return `$${amount.toFixed(amount < 1 ? 4 : 2)}`;
}

/** Whose cap a call would pass: the job's own, an owner's (counting its sub-agents), or the session's. */
export type CapOwner = { kind: 'job' } | { kind: 'owner'; id: string } | { kind: 'session' };

/** One cap a call would pass: in tokens or dollars, how far, and what was used before it. */
export interface CapOvershoot {
  unit: 'tokens' | 'costUsd';
  whose: CapOwner;
  cap: number;
  /** Used so far, the calls still under way included. */
  used: number;
  /** The next call at most. */
  next: number;
}

/**
 * The reason a job ends with when its next call is refused, in the `budget: … reached (…)` form:
 * `budget: tokens reached (the next call, up to 9213 tokens, would pass sub-2's cap of 50000 by 1313; 42100 used by sub-2 and its sub-agents)`.
 */
export function refusalReason(over: CapOvershoot): string {
  const figure = (n: number) => (over.unit === 'tokens' ? String(Math.ceil(n)) : dollars(n));
  const what = over.unit === 'tokens' ? 'tokens' : 'cost';
  const next = over.unit === 'tokens' ? `${figure(over.next)} tokens` : figure(over.next);
  const by = figure(over.used + over.next - over.cap);
  const head = `the next call, up to ${next}, would pass`;
  switch (over.whose.kind) {
    case 'job':
      return `budget: ${what} reached (${head} the cap of ${figure(over.cap)} by ${by}; ${figure(over.used)} used)`;
    case 'owner': {
      const id = over.whose.id;
      return `budget: ${what} reached (${head} ${id}'s cap of ${figure(over.cap)} by ${by}; ${figure(over.used)} used by ${id} and its sub-agents)`;
    }
    case 'session': {
      const raise =
        over.unit === 'tokens'
          ? '--max-budget-tokens or agents.maxSessionTokens'
          : '--max-budget-usd or agents.maxSessionCostUsd';
      return `budget: session ${what} reached (${head} the session budget of ${figure(over.cap)} by ${by}; ${figure(over.used)} used, the parent's included; the user can raise it with ${raise})`;
    }
  }
}

/** A dollar cap applies to a job whose model has no price: it is refused, since the cap could not be kept. */
export function unpricedRefusal(model: string | undefined, cap: string): string {
  const name = model ?? 'the session model';
  return (
    `no price is known for model "${name}", so ${cap} cannot be kept: the user can give its prices in settings ` +
    `(models["${name}"].inputPrice and outputPrice); or cap the sub-agent in tokens (max_tokens) and not in dollars`
  );
}

/** An owner with nothing left of a cap cannot give a sub-agent any of it. */
export function ownerSpentRefusal(owner: string, unit: 'tokens' | 'costUsd', cap: number): string {
  const figure = unit === 'tokens' ? `${cap} tokens` : dollars(cap);
  return `no budget left for a sub-agent: ${owner}'s cap of ${figure} (counting its sub-agents) is spent; finish the task yourself`;
}

/** `200k tokens, $0.5000, 10 turns, 40 tool calls, 5m00s`: a job's caps as agent_start's result states them. */
export function capsText(caps: JobBudget): string {
  const parts = [
    caps.maxTokens !== undefined ? `${formatTokens(caps.maxTokens)} tokens` : undefined,
    caps.maxCostUsd !== undefined ? dollars(caps.maxCostUsd) : undefined,
    caps.maxTurns !== undefined ? `${caps.maxTurns} turns` : undefined,
    caps.maxToolCalls !== undefined ? `${caps.maxToolCalls} tool calls` : undefined,
    caps.maxDurationMs !== undefined ? formatDuration(caps.maxDurationMs) : undefined,
  ].filter((part) => part !== undefined);
  return parts.join(', ');
}

/** `Session budget left: 812k of 1.0M tokens, $3.20 of $5.00.` */
export function sessionLeftText(left: {
  tokens?: { left: number; cap: number };
  costUsd?: { left: number; cap: number };
}): string | undefined {
  const parts = [
    left.tokens ? `${formatTokens(Math.max(0, left.tokens.left))} of ${formatTokens(left.tokens.cap)} tokens` : undefined,
    left.costUsd ? `${dollars(Math.max(0, left.costUsd.left))} of ${dollars(left.costUsd.cap)}` : undefined,
  ].filter((part) => part !== undefined);
  return parts.length ? `Session budget left: ${parts.join(', ')}.` : undefined;
}
