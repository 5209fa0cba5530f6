import { JobError } from './job-error.js';
import type { Job, JobBudget, JobManagerOptions } from './job-types.js';

const CAP_KEYS = ['maxTokens', 'maxCostUsd', 'maxTurns', 'maxToolCalls', 'maxDurationMs'] as const;

/**
 * The caps a new job starts with: agent_start's within its definition's (or the settings'), for
 * the model may lower a cap the user set, never raise it; then within what its owners have left
 * (tokens and dollars through the budget, time here). Undefined when nothing caps it. Throws a
 * JobError when it may not start: an owner has nothing left, or a dollar cap would hold a model
 * without a price.
 */
export function startCaps(
  manager: Pick<JobManagerOptions, 'budget' | 'capsFor' | 'now'>,
  job: { definition: string; owner?: Job; model?: string; asked?: JobBudget },
  jobs: readonly Job[],
): JobBudget | undefined {
  const now = (manager.now ?? Date.now)();
  const caps = withinOwnerTime(narrowestCaps(job.asked, manager.capsFor?.(job.definition)), job.owner, now);
  const settled = manager.budget?.capsForStart?.(caps, { owner: job.owner?.id, model: job.model }, jobs) ?? { caps };
  if ('refused' in settled) throw new JobError(settled.refused);
  return Object.keys(settled.caps).length ? settled.caps : undefined;
}

/** Each cap at the smaller of the two where both give one. */
export function narrowestCaps(a: JobBudget | undefined, b: JobBudget | undefined): JobBudget {
  const out: JobBudget = {};
  for (const key of CAP_KEYS) {
    const values = [a?.[key], b?.[key]].filter((value): value is number => value !== undefined);
    if (values.length) out[key] = Math.min(...values);
  }
  return out;
}

/** A nested job runs no longer than its owner has left of its own time (it is stopped with its owner anyway). */
function withinOwnerTime(caps: JobBudget, owner: Job | undefined, now: number): JobBudget {
  const ownerCap = owner?.budget?.maxDurationMs;
  if (ownerCap === undefined || owner?.startedAt === undefined) return caps;
  const left = Math.max(1, owner.startedAt + ownerCap - now);
  return { ...caps, maxDurationMs: Math.min(caps.maxDurationMs ?? left, left) };
}
