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
