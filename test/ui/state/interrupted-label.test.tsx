import { describe, expect, it } from 'vitest';
import { AgentsList } from '../../../src/ui/components/agents-list.js';
import { jobFigures, jobStateLabel } from '../../../src/ui/state/job-status.js';
import { frame, jobView, mount } from '../harness.js';

describe('jobs the session ended under', () => {
  it('read "interrupted", not "failed", in /agents and in the job view', async () => {
    const interrupted = jobView({
      number: 1,
      state: 'error',
      interrupted: true,
      error: 'interrupted (the session ended)',
      startedAt: 0,
      endedAt: 5000,
    });
    const failed = jobView({ number: 2, state: 'error', error: 'provider exploded', startedAt: 0, endedAt: 5000 });
    expect(jobStateLabel(interrupted.job)).toBe('interrupted');
    expect(jobStateLabel(failed.job)).toBe('failed');
    expect(jobFigures(interrupted.job, 9000)).toMatch(/^interrupted 5s/);
    const rendered = await mount(<AgentsList jobs={[interrupted, failed]} selected={0} now={9000} width={100} />);
    const lines = frame(rendered).split('\n');
    expect(lines.find((line) => line.includes('sub-1'))).toContain('interrupted');
    expect(lines.find((line) => line.includes('sub-2'))).toContain('failed');
  });
});

describe('jobs that wait for jobs', () => {
  it('read "waiting" in /agents, with the jobs they wait for before their task', async () => {
    const waiting = jobView({
      number: 3,
      state: 'queued',
      after: ['sub-1', 'sub-2'],
      waitingFor: ['sub-2'],
      task: 'merge the reports',
    });
    const queued = jobView({ number: 4, state: 'queued', task: 'behind a slot' });
    expect(jobStateLabel(waiting.job)).toBe('waiting');
    expect(jobStateLabel(queued.job)).toBe('queued');
    const rendered = await mount(<AgentsList jobs={[waiting, queued]} selected={0} now={9000} width={100} />);
    const lines = frame(rendered).split('\n');
    expect(lines.find((line) => line.includes('sub-3'))).toMatch(/waiting .*for sub-2 · merge the reports/);
    expect(lines.find((line) => line.includes('sub-4'))).toMatch(/queued .*behind a slot/);
  });
});
