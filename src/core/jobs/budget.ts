import { totalTokens } from '../loop/limits.js';
import type { Usage } from '../providers/types.js';
import { isDescendantId } from './job-ids.js';
import type { SessionLedger } from './ledger.js';
import type { BudgetPolicy, BudgetVerdict, Job, SpentBudget } from './job-types.js';

/** The session's caps over the parent and every job (flags over settings, already merged). */
export interface SessionCaps {
  maxSessionTokens?: number;
  maxSessionCostUsd?: number;
}

/** The share of a cap from which a job is near it. */
export const BUDGET_WARNING = 0.8;

/**
 * The budget of one session: its ledger, its caps and its prices. Pure over the jobs it is
 * shown: it never reaches into the job manager, which asks it and carries out the verdict.
 */
export class SessionBudget implements BudgetPolicy {
  constructor(
    private readonly options: {
      ledger: SessionLedger;
      caps: SessionCaps;
      /** Dollars for some usage at a job's model (the session's when absent); undefined when unknown. */
      costOf?: (usage: Usage, model?: string) => number | undefined;
    },
  ) {}

  get ledger(): SessionLedger {
    return this.options.ledger;
  }

  /** Why no job may start (or be resumed) now, or undefined. */
  admission(jobs: readonly Job[]): string | undefined {
    return this.spent(jobs)?.message;
  }

  /** Counts a job's usage, then judges its caps, its owners' and the session's. */
  record(jobId: string, usage: Usage, jobs: readonly Job[]): BudgetVerdict {
    this.options.ledger.addJob(jobId, usage);
    return { ...this.jobCaps(jobId, jobs), spent: this.spent(jobs) };
  }

  /** The parent's own usage counts too: judged when it is settled, at a step boundary. */
  atBoundary(jobs: readonly Job[]): BudgetVerdict {
    return { shares: [], failed: [], spent: this.spent(jobs) };
  }

  /** The whole session's cost, each job at its own model's prices; undefined when one price is unknown. */
  cost(jobs: readonly Job[]): number | undefined {
    const models = new Map(jobs.map((job) => [job.id, job.model]));
    return sumCosts(
      this.options.ledger
        .breakdown()
        .map(({ name, usage }) => this.options.costOf?.(usage, name === 'parent' ? undefined : models.get(name))),
    );
  }

  /** Which session budget is spent, if one is. */
  private spent(jobs: readonly Job[]): SpentBudget | undefined {
    const { maxSessionTokens: tokenCap, maxSessionCostUsd: costCap } = this.options.caps;
    const tokens = this.options.ledger.totalTokens();
    if (tokenCap !== undefined && tokens >= tokenCap) {
      const message =
        `the session budget of ${tokenCap} tokens is spent (${tokens} used, sub-agents included): no new sub-agents. ` +
        'Raise it with --max-budget-tokens or agents.maxSessionTokens in settings.';
      return { limit: 'tokens', budget: tokenCap, used: tokens, message };
    }
    if (costCap === undefined) return undefined;
    const cost = this.cost(jobs);
    if (cost !== undefined && cost >= costCap) {
      const message =
        `the session budget of ${dollars(costCap)} is spent (${dollars(cost)} used, sub-agents included): no new sub-agents. ` +
        'Raise it with --max-budget-usd or agents.maxSessionCostUsd in settings.';
      return { limit: 'costUsd', budget: costCap, used: cost, message };
    }
    return undefined;
  }

  /** A cap counts the job's subtree (the jobs it started), so the job and each of its owners is judged. */
  private jobCaps(jobId: string, jobs: readonly Job[]): Omit<BudgetVerdict, 'spent'> {
    const verdict: Omit<BudgetVerdict, 'spent'> = { shares: [], failed: [] };
    for (const job of jobs.filter((j) => j.id === jobId || isDescendantId(jobId, j.id))) {
      const caps = job.budget;
      if (!caps) continue;
      const subtree = jobs.filter((j) => j.id === job.id || isDescendantId(j.id, job.id));
      const tokens = subtree.reduce((sum, j) => sum + totalTokens(j.usage), 0);
      const cost = sumCosts(subtree.map((j) => this.options.costOf?.(j.usage, j.model)));
      const fractions = [
        caps.maxTokens !== undefined ? tokens / caps.maxTokens : 0,
        caps.maxCostUsd !== undefined && cost !== undefined ? cost / caps.maxCostUsd : 0,
      ];
      verdict.shares.push({ id: job.id, fraction: Math.max(...fractions) });
      if (caps.maxTokens !== undefined && tokens >= caps.maxTokens) {
        verdict.failed.push({ id: job.id, reason: `budget: tokens reached (${tokens} of ${caps.maxTokens})` });
      } else if (caps.maxCostUsd !== undefined && cost !== undefined && cost >= caps.maxCostUsd) {
        verdict.failed.push({ id: job.id, reason: `budget: cost reached (${dollars(cost)} of ${dollars(caps.maxCostUsd)})` });
      }
    }
    return verdict;
  }
}

/** The sum of some costs; unknown when any of them is. */
function sumCosts(costs: (number | undefined)[]): number | undefined {
  let sum = 0;
  for (const cost of costs) {
    if (cost === undefined) return undefined;
    sum += cost;
  }
  return sum;
}

function dollars(amount: number): string {
  return `$${amount.toFixed(amount < 1 ? 4 : 2)}`;
}
