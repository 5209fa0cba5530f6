import { describe, expect, it } from 'vitest';
import { ActivityRows, rowColor } from '../../../src/ui/components/activity-rows.js';
import { formatRow } from '../../../src/ui/state/activity-rows.js';
import { activeJobs, applyJobEvent, noJobs } from '../../../src/ui/state/jobs.js';
import { counters, frame, job, jobView, mount } from '../harness.js';

describe('rows of jobs that wait or stall', () => {
  it('a job started with after says which of its jobs it still waits for, as they end', async () => {
    const events = [
      { type: 'job_state' as const, job: job({ number: 1 }) },
      { type: 'job_state' as const, job: job({ number: 2 }) },
      {
        type: 'job_state' as const,
        job: job({ number: 3, state: 'queued', createdAt: 1000, after: ['sub-1', 'sub-2'], waitingFor: ['sub-1', 'sub-2'] }),
      },
    ];
    const jobs = events.reduce(applyJobEvent, noJobs);
    const rendered = await mount(<ActivityRows jobs={activeJobs(jobs)} now={21_000} width={100} />);
    expect(frame(rendered).split('\n')[2]).toBe('sub-3  waiting for sub-1, sub-2 · 20s');
    // sub-1 ended: the manager publishes sub-3 again with what it still waits for.
    const later = [
      { type: 'job_state' as const, job: job({ number: 1, state: 'done', endedAt: 5000 }) },
      {
        type: 'job_state' as const,
        job: job({ number: 3, state: 'queued', createdAt: 1000, after: ['sub-1', 'sub-2'], waitingFor: ['sub-2'] }),
      },
    ].reduce(applyJobEvent, jobs);
    rendered.rerender(<ActivityRows jobs={activeJobs(later)} now={21_000} width={100} />);
    expect(frame(rendered).split('\n')).toEqual([
      'sub-2  starting… · 21s · 0 tools · 0 tok · task 2',
      'sub-3  waiting for sub-2 · 20s',
    ]);
  });

  it('a running job with no event for a minute reads stalled, for as long as it has been silent, in the warning colour', async () => {
    // Its last event (a tool call) came at 10s: at 90s it has been silent 1m20s.
    const jobs = [
      { type: 'job_state' as const, job: job({ number: 1, startedAt: 0 }) },
      {
        type: 'job_event' as const,
        jobId: 'sub-1',
        event: { type: 'tool_start' as const, id: 'a', name: 'bash', label: 'npm test', args: { command: 'npm test' } },
        counters: counters({ toolCalls: 1, lastEventAt: 10_000 }),
      },
    ].reduce(applyJobEvent, noJobs);
    const views = activeJobs(jobs);
    const rendered = await mount(<ActivityRows jobs={views} now={69_999} width={100} />);
    expect(frame(rendered)).toBe('sub-1  bash npm test · 1m09s · 1 tool · 0 tok · task 1');
    rendered.rerender(<ActivityRows jobs={views} now={90_000} width={100} />);
    expect(frame(rendered)).toBe('sub-1  stalled 1m20s: bash npm test · 1m30s · 1 tool · 0 tok · task 1');
    expect(rowColor(views[0]!.job, undefined, 90_000)).toBe('yellow');
    expect(rowColor(views[0]!.job, undefined, 69_999)).toBeUndefined();
  });

  it('a job waiting for an approval, a queued one and a shell are never called stalled', () => {
    const silent = { lastEventAt: 0 };
    const approval = formatRow(jobView({ number: 1, ...silent }), 600_000, 100, { instead: 'waiting for approval: bash rm x' });
    expect(approval).toMatch(/^sub-1 {2}waiting for approval: bash rm x · /);
    expect(formatRow(jobView({ number: 2, state: 'queued', createdAt: 0, ...silent }), 600_000, 100)).toBe(
      'sub-2  queued · 10m00s',
    );
    const shell = jobView({ number: 1, id: 'sh-1', kind: 'shell', task: 'npm run dev', ...silent });
    expect(formatRow(shell, 600_000, 100)).not.toContain('stalled');
    expect(rowColor({ kind: 'shell', state: 'running', ...silent }, undefined, 600_000)).toBeUndefined();
  });
});
