import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/core/loop/events.js';
import { ActivityRows } from '../../../src/ui/components/activity-rows.js';
import { type RowMap, applyRowEvents, formatRow, orderedRows } from '../../../src/ui/state/activity-rows.js';
import { frame, job, mount } from '../harness.js';

const row = (key: string, rank: number, text: string): AgentEvent => ({ type: 'job_row', key, text, rank });

describe('activity rows', () => {
  it('orders rows by job number whatever order their updates arrive in', async () => {
    const rows = applyRowEvents(new Map(), [
      row('sub-10', 10, 'grep TODO'),
      row('sub-2', 2, 'read_file src/a.ts'),
      row('sub-1', 1, 'thinking…'),
      row('sub-2', 2, 'list_dir src'),
    ]);
    expect(orderedRows(rows).map((r) => r.key)).toEqual(['sub-1', 'sub-2', 'sub-10']);
    const jobs = [1, 2, 10].map((number) => job({ number }));
    const rendered = await mount(<ActivityRows rows={rows} jobs={jobs} now={5000} width={100} />);
    const lines = frame(rendered).split('\n');
    expect(lines[0]).toMatch(/^sub-1 {2}thinking… {2}running 5s · 0 tools · 0 tok$/);
    expect(lines[1]).toMatch(/^sub-2 {2}list_dir src {2}running/);
    expect(lines[2]).toMatch(/^sub-10 {2}grep TODO/);
  });

  it('removes a row when its job ends (empty text)', () => {
    const rows = applyRowEvents(new Map(), [row('sub-1', 1, 'a'), row('sub-2', 2, 'b')]);
    const after = applyRowEvents(rows, [row('sub-1', 1, '')]);
    expect([...after.keys()]).toEqual(['sub-2']);
  });

  it('returns the same map when a batch has no row events, so nothing re-renders', () => {
    const rows: RowMap = new Map();
    expect(applyRowEvents(rows, [{ type: 'job_status', text: '', short: '' }])).toBe(rows);
  });

  it('shows state, elapsed, tool count and tokens', () => {
    const line = formatRow(
      { key: 'sub-2', text: 'grep parseConfig', rank: 2 },
      job({ number: 2, startedAt: 1000, toolCalls: 12, usage: { input: 15_000, output: 3_000, cacheRead: 0, cacheWrite: 0 } }),
      81_000,
      120,
    );
    expect(line).toBe('sub-2  grep parseConfig  running 1m20s · 12 tools · 18k tok');
  });

  it('cuts each row to the width, keeping the figures while there is room', async () => {
    const long = 'writing: ' + 'a very long streamed sentence '.repeat(10);
    const rows = applyRowEvents(new Map(), [row('sub-1', 1, long), row('sub-2', 2, 'multi\nline\nactivity')]);
    const jobs = [job({ number: 1, toolCalls: 1 }), job({ number: 2 })];
    const rendered = await mount(<ActivityRows rows={rows} jobs={jobs} now={3000} width={60} />);
    const lines = frame(rendered).split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(60);
    expect(lines[0]).toMatch(/^sub-1 {2}writing: a very long.*… {2}running 3s · 1 tool · 0 tok$/);
    expect(lines[1]).toContain('multi line activity');

    const narrow = formatRow({ key: 'sub-1', text: long, rank: 1 }, jobs[0], 3000, 30);
    expect(Array.from(narrow)).toHaveLength(30);
    expect(narrow.startsWith('sub-1  writing')).toBe(true);
  });

  it('says when a job waits for the user', async () => {
    const rows = applyRowEvents(new Map(), [row('sub-1', 1, 'bash npm test')]);
    const rendered = await mount(
      <ActivityRows rows={rows} jobs={[job({ number: 1 })]} now={0} width={100} waiting={new Map([['sub-1', 'bash npm test']])} />,
    );
    expect(frame(rendered)).toContain('sub-1  waiting for approval: bash npm test');
  });

  it('renders nothing without rows', async () => {
    const rendered = await mount(<ActivityRows rows={new Map()} jobs={[]} now={0} width={100} />);
    expect(frame(rendered)).toBe('');
  });
});
