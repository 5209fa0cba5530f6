/**
 * What people read while calls wait at the provider's rate-limit gate: a job's row counts the
 * pause down on the UI's clock (and is not "stalled" meanwhile), the parent's working line says
 * the same, and a rate-limited retry says it pauses every call rather than spending a retry.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../../../src/core/jobs/job-manager.js';
import type { LoopEvent } from '../../../src/core/loop/events.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import { rateLimitText, retryText } from '../../../src/ui/format.js';
import { formatRow } from '../../../src/ui/state/activity-rows.js';
import { type JobsState, applyJobEvent, describeActivity, noJobs } from '../../../src/ui/state/jobs.js';
import { type TurnActivity, applyTurnActivity, workingLine } from '../../../src/ui/state/turn-activity.js';
import { counters, job } from '../harness.js';

const state = (snapshot: Job): SessionEvent => ({ type: 'job_state', job: snapshot });
const child = (jobId: string, event: LoopEvent): SessionEvent => ({ type: 'job_event', jobId, event, counters: counters() });
const apply = (events: SessionEvent[], from: JobsState = noJobs) => events.reduce(applyJobEvent, from);

describe("a job's row while it waits for a rate limit", () => {
  const waiting = apply([
    state(job({ number: 2, startedAt: 0 })),
    child('sub-2', { type: 'turn_start', turn: 1 }),
    child('sub-2', { type: 'rate_limit', waiting: true, until: 30_000, reason: 'rate limited (429)' }),
  ]);

  it('counts the pause down on the clock it is drawn with, rounding up', () => {
    const view = waiting.get('sub-2')!;
    expect(view.activity).toEqual({ kind: 'rate_limit', until: 30_000 });
    expect(formatRow(view, 18_000, 100)).toMatch(/^sub-2 {2}waiting for rate limit 12s · 18s · /);
    expect(formatRow(view, 18_500, 100)).toMatch(/^sub-2 {2}waiting for rate limit 12s · /);
    expect(formatRow(view, 29_001, 100)).toMatch(/^sub-2 {2}waiting for rate limit 1s · /);
  });

  it('is not stalled while it waits, however long since its last event', () => {
    const view = waiting.get('sub-2')!;
    const quiet = { ...view, job: { ...view.job, lastEventAt: 0 } };
    expect(formatRow(quiet, 90_000, 100)).toMatch(/^sub-2 {2}waiting for rate limit · 1m30s/);
    expect(formatRow(quiet, 90_000, 100)).not.toContain('stalled');
  });

  it('a pause moved on is counted from its new end; without a pause it waits for a place', () => {
    let jobs = apply([child('sub-2', { type: 'rate_limit', waiting: true, until: 60_000, reason: 'overloaded (529)' })], waiting);
    expect(formatRow(jobs.get('sub-2')!, 20_000, 100)).toMatch(/^sub-2 {2}waiting for rate limit 40s/);
    jobs = apply([child('sub-2', { type: 'rate_limit', waiting: true, reason: 'overloaded (529)' })], jobs);
    expect(formatRow(jobs.get('sub-2')!, 20_000, 100)).toMatch(/^sub-2 {2}waiting for rate limit · 20s/);
    expect(describeActivity(jobs.get('sub-2')!.activity, 'running')).toBe('waiting for rate limit');
  });

  it('goes back to the model once let through', () => {
    const jobs = apply([child('sub-2', { type: 'rate_limit', waiting: false })], waiting);
    expect(formatRow(jobs.get('sub-2')!, 31_000, 100)).toMatch(/^sub-2 {2}thinking… · 31s/);
  });
});

describe("the parent's working line while it waits for a rate limit", () => {
  it('counts the pause down, and says the model again once let through', () => {
    let turn: TurnActivity | undefined = applyTurnActivity(undefined, { type: 'submit', prompt: 'go' }, 0);
    turn = applyTurnActivity(turn, { type: 'rate_limit', waiting: true, until: 12_000, reason: 'rate limited (429)' }, 1000);
    expect(workingLine(turn, 2000)).toMatch(/^. waiting for rate limit 10s · turn 2s · Esc to interrupt$/);
    turn = applyTurnActivity(turn, { type: 'rate_limit', waiting: true, until: 20_000, reason: 'rate limited (429)' }, 3000);
    expect(workingLine(turn, 3000)).toContain('waiting for rate limit 17s');
    turn = applyTurnActivity(turn, { type: 'rate_limit', waiting: false }, 20_000);
    expect(workingLine(turn, 20_000)).toContain('waiting for the model');
  });
});

describe('the words', () => {
  it('a rate-limited retry pauses every call to the provider; another counts its attempts', () => {
    expect(retryText({ attempt: 3, maxRetries: 4, delayMs: 7000, reason: 'rate limited (429)', rateLimited: true })).toBe(
      'rate limited (429): calls to this provider pause for 7.0s',
    );
    expect(retryText({ attempt: 1, maxRetries: 4, delayMs: 500, reason: 'server error (500)' })).toBe(
      'retrying in 0.5s (server error (500), attempt 1/4)',
    );
  });

  it('a countdown in minutes past a minute, and never 0s while waiting', () => {
    expect(rateLimitText(95_000, 0)).toBe('waiting for rate limit 1m35s');
    expect(rateLimitText(1000, 999)).toBe('waiting for rate limit 1s');
    expect(rateLimitText(1000, 1000)).toBe('waiting for rate limit');
    expect(rateLimitText(undefined, 0)).toBe('waiting for rate limit');
  });
});
