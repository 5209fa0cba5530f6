import { type Usage, addUsage, emptyUsage } from '../providers/types.js';
import { totalTokens } from '../loop/limits.js';
import { compareJobIds } from './job-ids.js';

/**
 * The session's token accounting: the parent's own usage plus one child ledger per job.
 * Totals and cost include every job; the parent's context figure is tracked elsewhere.
 */
export class SessionLedger {
  private parentUsage = emptyUsage();
  private readonly jobUsage = new Map<string, Usage>();

  addParent(usage: Usage): void {
    this.parentUsage = addUsage(this.parentUsage, usage);
  }

  addJob(jobId: string, usage: Usage): void {
    this.jobUsage.set(jobId, addUsage(this.jobUsage.get(jobId) ?? emptyUsage(), usage));
  }

  parent(): Usage {
    return { ...this.parentUsage };
  }

  job(jobId: string): Usage {
    return { ...(this.jobUsage.get(jobId) ?? emptyUsage()) };
  }

  /** Parent and every job. */
  totals(): Usage {
    let total = this.parentUsage;
    for (const usage of this.jobUsage.values()) total = addUsage(total, usage);
    return total;
  }

  /** Every billed token of the session, jobs included: what the session budget counts. */
  totalTokens(): number {
    return totalTokens(this.totals());
  }

  /** Rows for /cost: the parent first, then each job in id order. */
  breakdown(): { name: string; usage: Usage }[] {
    const jobs = [...this.jobUsage.entries()].sort(([a], [b]) => compareJobIds(a, b));
    return [{ name: 'parent', usage: this.parent() }, ...jobs.map(([name, usage]) => ({ name, usage: { ...usage } }))];
  }

  /** Cost of everything, given a price function; undefined when the price is unknown. */
  cost(price: (usage: Usage) => number | undefined): number | undefined {
    return price(this.totals());
  }
}
