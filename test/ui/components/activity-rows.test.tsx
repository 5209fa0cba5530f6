import { describe, expect, it } from 'vitest';
import { ActivityRows, rowColor } from '../../../src/ui/components/activity-rows.js';
import { formatRow } from '../../../src/ui/state/activity-rows.js';
import { activeJobs, applyJobEvent, noJobs } from '../../../src/ui/state/jobs.js';
import { counters, frame, job, jobView, mount } from '../harness.js';

describe('activity rows', () => {
  it('orders rows by job number whatever order their updates arrive in', async () => {
    const jobs = [
      { type: 'job_state' as const, job: job({ number: 10 }) },
      {
        type: 'job_event' as const,
        jobId: 'sub-10',
        event: { type: 'tool_start' as const, id: 'a', name: 'grep', label: 'TODO', args: {} },
        counters: counters({ toolCalls: 1 }),
      },
      { type: 'job_state' as const, job: job({ number: 2 }) },
      {
        type: 'job_event' as const,
        jobId: 'sub-2',
        event: { type: 'tool_start' as const, id: 'b', name: 'read_file', label: 'src/a.ts', args: {} },
        counters: counters({ toolCalls: 1 }),
      },
      { type: 'job_state' as const, job: job({ number: 1 }) },
      {
        type: 'job_event' as const,
        jobId: 'sub-1',
        event: { type: 'turn_start' as const, turn: 1 },
        counters: counters({ turns: 1 }),
      },
      {
        type: 'job_event' as const,
        jobId: 'sub-2',
        event: { type: 'tool_start' as const, id: 'c', name: 'list_dir', label: 'src', args: {} },
        counters: counters({ toolCalls: 2 }),
      },
    ].reduce(applyJobEvent, noJobs);
    const rendered = await mount(<ActivityRows jobs={activeJobs(jobs)} now={5000} width={100} />);
    const lines = frame(rendered).split('\n');
    expect(lines[0]).toMatch(/^sub-1 {2}thinking… · 5s · 0 tools · 0 tok · task 1$/);
    expect(lines[1]).toMatch(/^sub-2 {2}list_dir src · 5s · 2 tools/);
    expect(lines[2]).toMatch(/^sub-10 {2}grep TODO/);
  });

  it('says what the job does, with elapsed time, tool count, tokens and cost; paths relative to the workspace', () => {
    const view = jobView(
      { number: 2, startedAt: 1000, toolCalls: 12, usage: { input: 15_000, output: 3_000, cacheRead: 0, cacheWrite: 0 } },
      {
        activity: { kind: 'tool', name: 'grep', label: 'auth in /work/p/src/', args: { pattern: 'auth', path: '/work/p/src/' } },
      },
    );
    expect(formatRow(view, 81_000, 120, { cost: 0.0412, root: '/work/p' })).toBe(
      'sub-2  grep "auth" src · 1m20s · 12 tools · 18k tok · $0.04 · task 2',
    );
    expect(formatRow(view, 81_000, 120)).toBe('sub-2  grep "auth" /work/p/src/ · 1m20s · 12 tools · 18k tok · task 2');
  });

  it('keeps id, state and action at narrow widths and drops the figures from the end', () => {
    const view = jobView(
      { number: 2, startedAt: 1000, toolCalls: 12, usage: { input: 15_000, output: 3_000, cacheRead: 0, cacheWrite: 0 } },
      { activity: { kind: 'tool', name: 'bash', label: 'npm test', args: { command: 'npm test -- --run' } } },
    );
    expect(formatRow(view, 81_000, 50, { cost: 0.04 })).toBe('sub-2  bash npm test -- --run · 1m20s · 12 tools');
    expect(formatRow(view, 81_000, 30, { cost: 0.04 })).toBe('sub-2  bash npm test -- --run');
    expect(formatRow(view, 81_000, 20)).toBe('sub-2  bash npm tes…');
    // A queued job says so once, with how long it has waited.
    expect(formatRow(jobView({ number: 5, state: 'queued', createdAt: 0 }), 12_000, 80)).toBe('sub-5  queued · 12s');
  });

  it('cuts each row to the width, keeping the figures while there is room', async () => {
    const long = 'a very long streamed sentence '.repeat(10);
    const jobs = [
      jobView({ number: 1, toolCalls: 1 }, { activity: { kind: 'writing', tail: long } }),
      jobView({ number: 2 }, { activity: { kind: 'tool', name: 'bash', label: 'multi\nline\nactivity' } }),
    ];
    const rendered = await mount(<ActivityRows jobs={jobs} now={3000} width={60} />);
    const lines = frame(rendered).split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(60);
    expect(lines[0]).toMatch(/^sub-1 {2}writing: ….*… · 3s · 1 tool · 0 tok$/);
    expect(lines[1]).toMatch(/^sub-2 {2}bash multi line activity · 3s/);

    const narrow = formatRow(jobs[0]!, 3000, 30);
    expect(Array.from(narrow)).toHaveLength(30);
    expect(narrow.startsWith('sub-1  writing')).toBe(true);
  });

  it("says when the user's message waits for the job's next step, then how many it got", () => {
    const waiting = jobView({ number: 1, toolCalls: 2 }, { activity: { kind: 'thinking' }, unread: 1, messages: 1 });
    expect(formatRow(waiting, 3000, 100)).toBe('sub-1  thinking… · 3s · 1 message waiting · 2 tools · 0 tok · task 1');
    expect(formatRow({ ...waiting, unread: 0, messages: 2 }, 3000, 100)).toBe(
      'sub-1  thinking… · 3s · 2 messages · 2 tools · 0 tok · task 1',
    );
    expect(formatRow({ ...waiting, unread: 0, messages: 0 }, 3000, 100)).toBe('sub-1  thinking… · 3s · 2 tools · 0 tok · task 1');
    // A queued job's message joined its task.
    const queued = jobView({ number: 2, state: 'queued', createdAt: 0 }, { activity: { kind: 'queued' }, messages: 1 });
    expect(formatRow(queued, 3000, 100)).toBe('sub-2  queued · 3s · 1 message');
  });

  it('ends with the task, cut to the room left, so each row says which job it is', () => {
    const view = jobView({ number: 1, task: 'map the config loader and every place that reads it' });
    expect(formatRow(view, 3000, 80)).toBe('sub-1  thinking… · 3s · 0 tools · 0 tok · map the config loader and every place…');
    // No room for ten cells of it: the row keeps its figures instead.
    expect(formatRow(view, 3000, 45)).toBe('sub-1  thinking… · 3s · 0 tools · 0 tok');
  });

  it('says when a job waits for the user', async () => {
    const rendered = await mount(
      <ActivityRows jobs={[jobView({ number: 1 })]} now={0} width={100} waiting={new Map([['sub-1', 'bash npm test']])} />,
    );
    expect(frame(rendered)).toContain('sub-1  waiting for approval: bash npm test');
  });

  it('renders nothing without running jobs', async () => {
    const rendered = await mount(<ActivityRows jobs={[]} now={0} width={100} />);
    expect(frame(rendered)).toBe('');
  });
});

describe('the row colour', () => {
  it('warns from 80 % of a cap and while the job waits for an approval, not before', () => {
    expect(rowColor({}, undefined)).toBeUndefined();
    expect(rowColor({ budgetUsed: 0.79 }, undefined)).toBeUndefined();
    expect(rowColor({ budgetUsed: 0.8 }, undefined)).toBe('yellow');
    expect(rowColor({ budgetUsed: 1 }, undefined)).toBe('yellow');
    expect(rowColor({ budgetUsed: 0.1 }, 'bash npm test')).toBe('yellow');
  });

  it("ends a job's figures with its effort, the first to give way on a narrow row", () => {
    const view = jobView(
      { number: 3, startedAt: 1000, toolCalls: 2, effort: 'high' },
      { activity: { kind: 'tool', name: 'bash', label: 'npm test', args: { command: 'npm test' } } },
    );
    expect(formatRow(view, 11_000, 100)).toBe('sub-3  bash npm test · 10s · 2 tools · 0 tok · effort high · task 3');
    expect(formatRow(view, 11_000, 50)).toBe('sub-3  bash npm test · 10s · 2 tools · 0 tok');
  });
});
