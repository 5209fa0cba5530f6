import { type Usage, addUsage, emptyUsage } from '../providers/types.js';
import { totalTokens } from '../loop/limits.js';
import { compareJobIds } from './job-ids.js';

/** One row of the session's usage: `parent` (once per model it ran on) or a job's id. */
export interface LedgerRow {
  name: string;
  usage: Usage;
  /** The parent's rows: the model the usage was spent on, when it was said. */
  model?: string;
}

/**
 * The session's token accounting: the parent's own usage (by the model it was spent on, since
 * `/model` switches it) plus one child ledger per job. Totals and cost include every job; the
 * parent's context figure is tracked elsewhere.
 */
export class SessionLedger {
  private parentUsage = emptyUsage();
  /** The parent's usage by model, in the order the models were first used; '' where none was said. */
  private readonly parentByModel = new Map<string, Usage>();
  private readonly jobUsage = new Map<string, Usage>();

  /** The parent's usage, spent on `model` (priced at the session's model when absent). */
  addParent(usage: Usage, model = ''): void {
    this.parentUsage = addUsage(this.parentUsage, usage);
    this.parentByModel.set(model, addUsage(this.parentByModel.get(model) ?? emptyUsage(), usage));
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

  /** Rows for /cost: the parent first (a row per model it ran on), then each job in id order. */
  breakdown(): LedgerRow[] {
    const jobs = [...this.jobUsage.entries()].sort(([a], [b]) => compareJobIds(a, b));
    const parent: LedgerRow[] = [...this.parentByModel].map(([model, usage]) => ({
      name: 'parent',
      usage: { ...usage },
      ...(model ? { model } : {}),
    }));
    return [
      ...(parent.length ? parent : [{ name: 'parent', usage: this.parent() }]),
      ...jobs.map(([name, usage]) => ({ name, usage: { ...usage } })),
    ];
  }
}
