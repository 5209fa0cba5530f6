import { describe, expect, it } from 'vitest';
import type { Job } from '../../../src/core/jobs/job-types.js';
import { SessionLedger } from '../../../src/core/jobs/ledger.js';
import { usageReport } from '../../../src/core/jobs/usage-report.js';
import { costOf, modelInfo } from '../../../src/core/providers/models.js';
import { type Usage, emptyUsage } from '../../../src/core/providers/types.js';

const SONNET = 'claude-sonnet-4-5';
const HAIKU = 'claude-haiku-4-5';
const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage => ({ input, output, cacheRead, cacheWrite });
const job = (id: string, model: string | undefined): Job => ({
  id,
  number: 1,
  state: 'done',
  definition: 'explore',
  mode: 'typed',
  task: 't',
  createdAt: 0,
  turns: 1,
  toolCalls: 0,
  contextTokens: 0,
  usage: emptyUsage(),
  ...(model ? { model } : {}),
});

describe('usageReport: usage by job and by model', () => {
  it('prices each row at its own model, adds up each model, and keeps every kind of token apart', () => {
    const ledger = new SessionLedger();
    ledger.addParent(usage(10_000, 1_000, 50_000, 2_000));
    ledger.addJob('sub-1', usage(4_000, 400, 1_000, 500));
    ledger.addJob('sub-2', usage(2_000, 100));
    ledger.addJob('sub-3', usage(1_000, 0));
    const jobs = [job('sub-1', HAIKU), job('sub-2', SONNET), job('sub-3', undefined)];
    const report = usageReport({
      ledger,
      jobs,
      parentModel: SONNET,
      costOf: (u, model) => costOf(u, modelInfo(model ?? SONNET)),
    });
    const price = (u: Usage, model: string) => costOf(u, modelInfo(model))!;
    expect(report.rows).toEqual([
      {
        name: 'parent',
        model: SONNET,
        usage: usage(10_000, 1_000, 50_000, 2_000),
        cost: price(usage(10_000, 1_000, 50_000, 2_000), SONNET),
      },
      { name: 'sub-1', model: HAIKU, usage: usage(4_000, 400, 1_000, 500), cost: price(usage(4_000, 400, 1_000, 500), HAIKU) },
      { name: 'sub-2', model: SONNET, usage: usage(2_000, 100), cost: price(usage(2_000, 100), SONNET) },
      // A job written before models were recorded ran on the session's.
      { name: 'sub-3', model: SONNET, usage: usage(1_000, 0), cost: price(usage(1_000, 0), SONNET) },
    ]);
    expect(report.models.map((row) => [row.model, row.usage])).toEqual([
      [SONNET, usage(13_000, 1_100, 50_000, 2_000)],
      [HAIKU, usage(4_000, 400, 1_000, 500)],
    ]);
    // The haiku job is not charged at sonnet's prices.
    expect(report.total.cost).toBeCloseTo(
      price(usage(13_000, 1_100, 50_000, 2_000), SONNET) + price(usage(4_000, 400, 1_000, 500), HAIKU),
      10,
    );
    expect(report.total.usage).toEqual(usage(17_000, 1_500, 51_000, 2_500));
  });

  it('a model without a price leaves its rows and the total unpriced, the others priced', () => {
    const ledger = new SessionLedger();
    ledger.addParent(usage(100, 10));
    ledger.addJob('sub-1', usage(100, 10));
    const report = usageReport({
      ledger,
      jobs: [job('sub-1', 'local-llama')],
      parentModel: SONNET,
      costOf: (u, model) => costOf(u, modelInfo(model ?? SONNET)),
    });
    expect(report.rows[0]!.cost).toBeGreaterThan(0);
    expect(report.rows[1]).not.toHaveProperty('cost');
    expect(report.total).not.toHaveProperty('cost');
  });
});
