import { describe, expect, it } from 'vitest';
import { formatRow } from '../../../src/ui/state/activity-rows.js';
import { jobView } from '../harness.js';

describe('rows of jobs that run on workers', () => {
  it('name the worker after the job id', () => {
    const row = formatRow(jobView({ number: 3, worker: 'build-2', startedAt: 0 }), 5000, 100);
    expect(row).toMatch(/^sub-3 @ build-2 {2}/);
  });

  it('say nothing of a worker for a job that runs here', () => {
    expect(formatRow(jobView({ number: 3, startedAt: 0 }), 5000, 100)).toMatch(/^sub-3 {2}/);
  });
});
