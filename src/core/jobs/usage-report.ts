import { type Usage, addUsage, emptyUsage } from '../providers/types.js';
import type { Job } from './job-types.js';
import type { SessionLedger } from './ledger.js';

/** One row of the session's usage: whose (`parent`, a job id, or a model), on which model, its tokens by kind and dollars. */
export interface UsageRow {
  name: string;
  model: string;
  usage: Usage;
  /** Undefined when the model has no known price. */
  cost?: number;
}

/** The session's usage split every way the front ends show it (/cost, the headless results). */
export interface UsageReport {
  /** The parent first, then each job in tree order, each on its own model. */
  rows: UsageRow[];
  /** One row per model (named by it), the parent's and every job's on it added up, the parent's model first. */
  models: UsageRow[];
  /** Everything; its cost is unknown when one model's price is. */
  total: { usage: Usage; cost?: number };
}

/**
 * The ledger's usage by job and by model. Each row is priced at its own model (the parent's at
 * the session's), so a job on a dearer or cheaper model is charged what it cost.
 */
export function usageReport(options: {
  ledger: SessionLedger;
  jobs: readonly Job[];
  parentModel: string;
  /** Dollars for some usage at `model`'s prices (the session model's when absent); undefined when unknown. */
  costOf: (usage: Usage, model?: string) => number | undefined;
}): UsageReport {
  const { ledger, parentModel, costOf } = options;
  const modelOf = new Map(options.jobs.map((job) => [job.id, job.model ?? parentModel]));
  const priced = (name: string, model: string, usage: Usage): UsageRow => {
    const cost = costOf(usage, model === parentModel ? undefined : model);
    return { name, model, usage, ...(cost !== undefined ? { cost } : {}) };
  };
  const rows = ledger
    .breakdown()
    .map(({ name, usage, model }) =>
      priced(name, name === 'parent' ? (model ?? parentModel) : (modelOf.get(name) ?? parentModel), usage),
    );
  const byModel = new Map<string, Usage>();
  for (const row of rows) byModel.set(row.model, addUsage(byModel.get(row.model) ?? emptyUsage(), row.usage));
  const models = [...byModel].map(([model, usage]) => priced(model, model, usage));
  const costs = models.map((row) => row.cost);
  const cost = costs.every((c) => c !== undefined) ? costs.reduce((sum, c) => sum + c, 0) : undefined;
  return { rows, models, total: { usage: ledger.totals(), ...(cost !== undefined ? { cost } : {}) } };
}
