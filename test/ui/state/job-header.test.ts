import { describe, expect, it } from 'vitest';
import { jobHeaderLines, jobTitle, usageLines, worktreeText } from '../../../src/ui/state/job-header.js';
import { cells } from '../../../src/ui/text-cells.js';
import { job, jobView } from '../harness.js';

const capped = job({
  number: 1,
  startedAt: 0,
  turns: 3,
  toolCalls: 5,
  usage: { input: 9000, output: 3000, cacheRead: 0, cacheWrite: 0 },
  budget: { maxTurns: 10, maxToolCalls: 40, maxTokens: 1_000_000, maxCostUsd: 0.5, maxDurationMs: 300_000 },
});

describe("the job view's header", () => {
  it('states each figure against its cap, and only the figures without one alone', () => {
    expect(usageLines(capped, { now: 80_000, cost: 0.02, width: 200 })).toEqual([
      { text: 'Used: 3 of 10 turns · 5 of 40 tool calls · 12k of 1.0M tokens · $0.02 of $0.50 · 1m20s of 5m00s' },
    ]);
    const free = job({ number: 2, startedAt: 0, turns: 1, toolCalls: 1 });
    expect(usageLines(free, { now: 5_000, width: 200 })).toEqual([{ text: 'Used: 1 turn · 1 tool call · 0 tokens · 5s' }]);
  });

  it('turns yellow near a cap while the job runs (the budget marks 80% used), not once it has ended', () => {
    const near = { ...capped, budgetUsed: 0.85 };
    expect(usageLines(near, { now: 0, width: 200 })[0]).toMatchObject({ color: 'yellow' });
    expect(usageLines({ ...near, state: 'done', endedAt: 1 }, { now: 0, width: 200 })[0]?.color).toBeUndefined();
    expect(usageLines({ ...capped, budgetUsed: 0.5 }, { now: 0, width: 200 })[0]?.color).toBeUndefined();
  });

  it('goes on under the first line on a narrow screen instead of cutting a figure, even at one column', () => {
    const lines = usageLines(capped, { now: 80_000, cost: 0.02, width: 40 }).map((line) => line.text);
    expect(lines).toEqual([
      'Used: 3 of 10 turns · 5 of 40 tool calls',
      '      12k of 1.0M tokens',
      '      $0.02 of $0.50 · 1m20s of 5m00s',
    ]);
    expect(usageLines(capped, { now: 0, width: 1 })).toHaveLength(5);
  });

  it('a queued job has used no time; its elapsed is frozen at its end', () => {
    expect(usageLines({ ...capped, state: 'queued' }, { now: 99_000, width: 200 })[0]?.text).toContain('0s of 5m00s');
    expect(usageLines({ ...capped, state: 'done', endedAt: 61_000 }, { now: 999_000, width: 200 })[0]?.text).toContain(
      '1m01s of 5m00s',
    );
  });

  it('titles the job with its state, time, model and effort', () => {
    expect(jobTitle({ ...capped, model: 'gpt-5.5', effort: 'low' }, 80_000)).toBe('running 1m20s · gpt-5.5 · effort low');
    expect(jobTitle({ ...capped, state: 'error', interrupted: true, endedAt: 1000 }, 80_000)).toBe('interrupted 1s');
  });

  it('a hostile task (control characters, a thousand lines) stays within two lines of the width', () => {
    const view = jobView({ number: 1, task: `${'x\u001b[2J\n'.repeat(1000)}end`, error: 'bad\u0007\u001b]52;c;Zm9v\u0007' });
    const lines = jobHeaderLines(view, { now: 0, width: 30 }).map((line) => line.text);
    expect(lines[0]).toBe('Task: x\\u{1b}[2J x\\u{1b}[2J');
    expect(lines[1]).toMatch(/ …$/);
    expect(lines[2]).toMatch(/^Used: /);
    for (const line of lines) expect(cells(line)).toBeLessThanOrEqual(30);
    for (const line of lines) expect([...line].some((char) => char.charCodeAt(0) < 0x20)).toBe(false);
    expect(lines.find((line) => line.startsWith('Error:'))).toBe('Error: bad\\u{7}\\u{1b}]52;c;Zm…');
  });

  it("words an isolated job's changes, counted so far while it runs", () => {
    const record = { jobId: 'sub-1', repo: '/w', path: '/s/sub-1', branch: 'outrider/s/sub-1', base: 'b' };
    const changes = { files: ['a.ts'], insertions: 2, deletions: 0 };
    expect(worktreeText(record, undefined, { state: 'running' }, 'outrider/s/sub-1')).toBe(
      'branch outrider/s/sub-1 · counting its changes…',
    );
    expect(worktreeText(record, changes, { state: 'running' }, 'o/sub-1')).toBe(
      'branch o/sub-1 · 1 file changed (+2 −0): a.ts so far',
    );
    expect(worktreeText(record, undefined, { state: 'running' }, 'o/sub-1', 'git diff failed:\nfatal: bad object')).toBe(
      'branch o/sub-1 · its changes could not be counted: git diff failed: fatal: bad object',
    );
    expect(worktreeText({ ...record, changes }, undefined, { state: 'done' }, 'o/sub-1')).toBe(
      'branch o/sub-1 · 1 file changed (+2 −0): a.ts',
    );
  });
});
