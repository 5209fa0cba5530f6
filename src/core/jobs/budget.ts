import type { CallAdmission } from '../loop/agent-loop.js';
import { totalTokens } from '../loop/limits.js';
import type { ModelRequest, Usage } from '../providers/types.js';
import {
  type CapOvershoot,
  dollars,
  ownerSpentRefusal,
  refusalReason,
  sessionLeftText,
  unpricedRefusal,
} from './budget-texts.js';
import { RequestSizer, estimateTokens, estimateUsage } from './call-estimate.js';
import { isDescendantId } from './job-ids.js';
import type { SessionLedger } from './ledger.js';
import type { BudgetPolicy, BudgetVerdict, Job, JobBudget, SpentBudget } from './job-types.js';

/** The session's caps over the parent and every job (flags over settings, already merged). */
export interface SessionCaps {
  maxSessionTokens?: number;
  maxSessionCostUsd?: number;
}

/** The share of a cap from which a job is near it. */
export const BUDGET_WARNING = 0.8;

/** A model call under way: its worst case, held against every cap above its job until its usage is counted. */
interface Hold {
  tokens: number;
  /** Undefined when its model has no price. */
  cost: number | undefined;
}

/** What a subtree (or the session) has used, the calls under way included at their worst case. */
interface Use {
  tokens: number;
  /** Undefined when a price is unknown. */
  cost: number | undefined;
}

/**
 * The budget of one session: its ledger, its caps and its prices. Pure over the jobs it is
 * shown: it never reaches into the job manager, which asks it and carries out the verdict.
 * Before a job's model call it judges the call's worst case (`admitCall`) and holds it until
 * the call's usage is counted, so calls made at once never pass a cap together.
 */
export class SessionBudget implements BudgetPolicy {
  /** Each job's call under way (a job makes one at a time). */
  private readonly held = new Map<string, Hold>();
  private readonly sizer = new RequestSizer();

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
    // The call's real usage takes the place of its worst case in the same step.
    this.held.delete(jobId);
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
        .map(({ name, usage, model }) => this.options.costOf?.(usage, name === 'parent' ? model : models.get(name))),
    );
  }

  /**
   * Before a job's model call: its worst case (the request's input, estimated, and its whole
   * max_tokens) against the job's caps, each owner's (counting its subtree) and the session's,
   * with the calls under way counted at theirs. Admitted, it is held until its usage arrives.
   */
  admitCall(jobId: string, request: ModelRequest, jobs: readonly Job[]): CallAdmission {
    const model = jobs.find((job) => job.id === jobId)?.model;
    const estimate = this.sizer.estimate(request);
    const next: Hold = { tokens: estimateTokens(estimate), cost: this.options.costOf?.(estimateUsage(estimate), model) };
    const refused = this.overshoot(jobId, next, jobs, model);
    if (refused !== undefined) return { refused };
    this.held.set(jobId, next);
    return {
      release: () => {
        if (this.held.get(jobId) === next) this.held.delete(jobId);
      },
    };
  }

  /**
   * A new job's caps within what each of its owners has left (tokens and dollars count a
   * subtree, so a nested job draws from its owners'). Refused when an owner has nothing left,
   * or a dollar cap would hold a model without a price.
   */
  capsForStart(
    caps: JobBudget,
    job: { owner?: string; model?: string },
    jobs: readonly Job[],
  ): { caps: JobBudget } | { refused: string } {
    const narrowed = { ...caps };
    let ownerDollars: string | undefined;
    for (const owner of chain(job.owner, jobs)) {
      const ownCaps = owner.budget;
      if (!ownCaps) continue;
      if (ownCaps.maxCostUsd !== undefined) ownerDollars ??= `${owner.id}'s dollar cap (${dollars(ownCaps.maxCostUsd)})`;
      const use = this.subtreeUse(owner.id, jobs);
      if (ownCaps.maxTokens !== undefined) {
        const left = ownCaps.maxTokens - use.tokens;
        if (left <= 0) return { refused: ownerSpentRefusal(owner.id, 'tokens', ownCaps.maxTokens) };
        narrowed.maxTokens = Math.min(narrowed.maxTokens ?? left, left);
      }
      if (ownCaps.maxCostUsd !== undefined && use.cost !== undefined) {
        const left = ownCaps.maxCostUsd - use.cost;
        if (left <= 0) return { refused: ownerSpentRefusal(owner.id, 'costUsd', ownCaps.maxCostUsd) };
        narrowed.maxCostUsd = Math.min(narrowed.maxCostUsd ?? left, left);
      }
    }
    const dollarCap =
      narrowed.maxCostUsd !== undefined
        ? `its dollar cap (${dollars(narrowed.maxCostUsd)})`
        : (ownerDollars ??
          (this.options.caps.maxSessionCostUsd !== undefined
            ? `the session's dollar budget (${dollars(this.options.caps.maxSessionCostUsd)})`
            : undefined));
    if (dollarCap && !this.priced(job.model)) return { refused: unpricedRefusal(job.model, dollarCap) };
    return { caps: narrowed };
  }

  /** `Session budget left: …`, when the session has a budget. */
  sessionLeft(jobs: readonly Job[]): string | undefined {
    const { maxSessionTokens: tokenCap, maxSessionCostUsd: costCap } = this.options.caps;
    const use = this.sessionUse(jobs);
    return sessionLeftText({
      ...(tokenCap !== undefined ? { tokens: { left: tokenCap - use.tokens, cap: tokenCap } } : {}),
      ...(costCap !== undefined && use.cost !== undefined ? { costUsd: { left: costCap - use.cost, cap: costCap } } : {}),
    });
  }

  /** The first cap `next` would pass: the job's, then each owner's up the tree, then the session's. */
  private overshoot(jobId: string, next: Hold, jobs: readonly Job[], model: string | undefined): string | undefined {
    const over = (
      unit: CapOvershoot['unit'],
      whose: CapOvershoot['whose'],
      cap: number | undefined,
      used: number | undefined,
    ) => {
      if (cap === undefined) return undefined;
      const nextFigure = unit === 'tokens' ? next.tokens : next.cost;
      if (used === undefined || nextFigure === undefined) {
        const what =
          whose.kind === 'session' ? `the session's dollar budget (${dollars(cap)})` : `a dollar cap (${dollars(cap)})`;
        return unpricedRefusal(model, what);
      }
      return used + nextFigure > cap ? refusalReason({ unit, whose, cap, used, next: nextFigure }) : undefined;
    };
    for (const job of chain(jobId, jobs)) {
      const caps = job.budget;
      if (!caps) continue;
      const whose: CapOvershoot['whose'] = job.id === jobId ? { kind: 'job' } : { kind: 'owner', id: job.id };
      const use = this.subtreeUse(job.id, jobs);
      const refused = over('tokens', whose, caps.maxTokens, use.tokens) ?? over('costUsd', whose, caps.maxCostUsd, use.cost);
      if (refused) return refused;
    }
    const session = this.sessionUse(jobs);
    const { maxSessionTokens, maxSessionCostUsd } = this.options.caps;
    return (
      over('tokens', { kind: 'session' }, maxSessionTokens, session.tokens) ??
      over('costUsd', { kind: 'session' }, maxSessionCostUsd, session.cost)
    );
  }

  /** A job's subtree: what it and the jobs it started used, and their calls under way. */
  private subtreeUse(rootId: string, jobs: readonly Job[]): Use {
    const subtree = jobs.filter((j) => j.id === rootId || isDescendantId(j.id, rootId));
    const holds = subtree.flatMap((j) => (this.held.has(j.id) ? [this.held.get(j.id)!] : []));
    return {
      tokens: subtree.reduce((sum, j) => sum + totalTokens(j.usage), 0) + holds.reduce((sum, h) => sum + h.tokens, 0),
      cost: sumCosts([...subtree.map((j) => this.options.costOf?.(j.usage, j.model)), ...holds.map((h) => h.cost)]),
    };
  }

  /** The whole session: the ledger (parent and jobs) and every call under way. */
  private sessionUse(jobs: readonly Job[]): Use {
    const holds = [...this.held.values()];
    const cost = this.cost(jobs);
    return {
      tokens: this.options.ledger.totalTokens() + holds.reduce((sum, h) => sum + h.tokens, 0),
      cost: cost === undefined ? undefined : sumCosts([cost, ...holds.map((h) => h.cost)]),
    };
  }

  /** Whether a model's usage can be priced. */
  private priced(model: string | undefined): boolean {
    return this.options.costOf?.({ input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, model) !== undefined;
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

/** A job and its owners, nearest first (only those in `jobs`). */
function chain(jobId: string | undefined, jobs: readonly Job[]): Job[] {
  const out: Job[] = [];
  for (let job = jobs.find((j) => j.id === jobId); job; job = jobs.find((j) => j.id === job!.owner)) {
    out.push(job);
    if (job.owner === undefined) break;
  }
  return out;
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
