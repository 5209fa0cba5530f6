import { describe, expect, it } from 'vitest';
import { formatRow } from '../../../src/ui/state/activity-rows.js';
import { quitEffects } from '../../../src/ui/state/job-status.js';
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

describe('quitting with jobs on workers', () => {
  it('says which jobs stop and which go on on their workers', () => {
    expect(quitEffects([{ kind: 'sub' }, { kind: 'shell' }])).toBe('stops 1 sub-agent and 1 shell');
    expect(quitEffects([{ kind: 'sub', remoteId: 'q1' }])).toBe('1 goes on on its worker');
    expect(quitEffects([{ kind: 'sub' }, { kind: 'sub', remoteId: 'q1' }, { kind: 'sub', remoteId: 'q2' }])).toBe(
      'stops 1 sub-agent; 2 go on on their workers',
    );
  });
});
