import type { JobBudget } from '../jobs/job-types.js';
import type { AgentDefinition } from './agent-definition.js';

/** What a job may use when neither its definition nor the settings say: the spec's limits of one child run. */
export const CHILD_CAPS = { maxTurns: 10, maxTokens: 1_000_000, maxDurationMs: 300_000 } as const;

/**
 * The caps a job of `definition` gets unless agent_start asks for lower ones: each of the file's
 * own (`maxTurns`, `max_total_tokens`, `maxCostUsd`, `maxToolCalls`, `timeout`), else the
 * session's (`agents.*` in settings), else the child defaults. A file read from the repository
 * may lower the session's, never raise them, as with a project's settings.
 */
export function definitionCaps(definition: AgentDefinition, session: JobBudget = {}): JobBudget {
  const own: JobBudget = {
    maxTurns: definition.maxTurns,
    maxTokens: definition.maxTotalTokens,
    maxCostUsd: definition.maxCostUsd,
    maxToolCalls: definition.maxToolCalls,
    maxDurationMs: definition.maxDurationMs,
  };
  const fallback: JobBudget = { ...CHILD_CAPS, ...defined(session) };
  const caps: JobBudget = {};
  for (const key of Object.keys(own) as (keyof JobBudget)[]) {
    const mine = own[key];
    const theirs = fallback[key];
    const value = mine === undefined ? theirs : definition.fromRepository && theirs !== undefined ? Math.min(mine, theirs) : mine;
    if (value !== undefined) caps[key] = value;
  }
  return caps;
}

function defined(caps: JobBudget): JobBudget {
  return Object.fromEntries(Object.entries(caps).filter(([, value]) => value !== undefined)) as JobBudget;
}
