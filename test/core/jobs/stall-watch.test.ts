import { describe, expect, it } from 'vitest';
import type { JobManager, JobManagerOptions } from '../../../src/core/jobs/job-manager.js';
import type { LoopEvent } from '../../../src/core/loop/events.js';
import { jobManagerHarness, textOf } from '../../support/controlled-runner.js';
import { settle } from '../../support/fake-clock.js';

const MINUTE = 60_000;

function setup(options: Partial<JobManagerOptions> = {}) {
  const { manager, runner, clock, events } = jobManagerHarness({ pollTimeoutMs: 10 * MINUTE, ...options });
  /** What a parent step boundary hands the model now. */
  const boundary = (): string[] => manager.boundaryMessages().map(textOf);
  const event = (id: string, e: LoopEvent) => runner.running.get(id)!.request.onEvent(e);
  return { manager, runner, clock, events, boundary, event };
}

const never = new AbortController().signal;
const bash = { type: 'tool_start' as const, id: 't1', name: 'bash', label: 'npm test', args: { command: 'npm test' } };

describe('stalled sub-agents', () => {
  it('stamps each event, so rows can say how long a job has been silent', async () => {
    const { manager, clock, event, events } = setup();
    manager.start('a');
    await settle();
    expect(manager.get('sub-1').lastEventAt).toBe(0);
    clock.advance(12_000);
    event('sub-1', bash);
    expect(manager.get('sub-1').lastEventAt).toBe(12_000);
    const published = events.flatMap((e) => (e.type === 'job_event' ? [e.counters.lastEventAt] : []));
    expect(published).toEqual([12_000]);
  });

  it('tells the parent once, after 5 minutes without an event, what the job did last', async () => {
    const { manager, clock, event, boundary } = setup();
    manager.start('run the tests');
    await settle();
    event('sub-1', { type: 'turn_start', turn: 1 });
    event('sub-1', bash);
    clock.advance(5 * MINUTE - 1);
    expect(boundary()).toEqual([]);
    clock.advance(1);
    expect(boundary()).toEqual([
      'sub-1 has made no progress for 5m00s: last a bash call (npm test), still running. Call agent_stop with id sub-1 to stop it, agent_send to tell it something (read at its next step), or agent_poll to wait for it.',
    ]);
    // One notice per stall, however long it lasts.
    clock.advance(30 * MINUTE);
    expect(boundary()).toEqual([]);
    expect(manager.get('sub-1').state).toBe('running');
  });

  it('an event restarts the wait; a new stall after it is told again', async () => {
    const { manager, clock, event, boundary } = setup();
    manager.start('a');
    await settle();
    clock.advance(4 * MINUTE);
    event('sub-1', bash);
    clock.advance(4 * MINUTE);
    expect(boundary()).toEqual([]);
    event('sub-1', { type: 'tool_end', id: 't1', name: 'bash', content: 'ok', isError: false });
    clock.advance(5 * MINUTE);
    expect(boundary()).toEqual([
      expect.stringMatching(/^sub-1 has made no progress for 5m00s: last a bash call \(npm test\), which returned\./),
    ]);
    event('sub-1', { type: 'turn_start', turn: 2 });
    clock.advance(6 * MINUTE);
    expect(boundary()).toEqual([
      expect.stringMatching(/^sub-1 has made no progress for 5m00s: last a model call, with no reply yet\./),
    ]);
  });

  it('names several stalls in one message, takes the setting, and drops the note of a job that ended meanwhile', async () => {
    const { manager, runner, clock, boundary } = setup({ stallNoticeMs: 90_000 });
    manager.start('a');
    manager.start('b');
    manager.start('c');
    await settle();
    clock.advance(90_000);
    runner.finish('sub-2');
    await settle();
    const messages = boundary();
    expect(messages[0]).toMatch(
      /^sub-1 has made no progress for 1m30s: last nothing since it started\. .*\nsub-3 has made no progress/s,
    );
    expect(messages.join('\n')).not.toContain('sub-2 has made');
  });

  it("tells a nested job's stall to the job that started it, not to the parent", async () => {
    const { manager, clock } = setup({ maxDepth: 2 });
    manager.start('owner');
    await settle();
    manager.start('its own', { owner: 'sub-1' });
    await settle();
    clock.advance(5 * MINUTE);
    expect(manager.boundaryMessages().map(textOf).join('\n')).not.toContain('sub-1.1 has made');
    expect(manager.boundaryMessages('sub-1').map(textOf)).toEqual([expect.stringMatching(/^sub-1\.1 has made no progress/)]);
  });

  it('agent_poll of a stalled job still returns by its timeout, with its progress and how long it has been silent', async () => {
    const { manager, clock, event } = setup();
    manager.start('a');
    await settle();
    event('sub-1', bash);
    let result: Awaited<ReturnType<JobManager['poll']>> | undefined;
    void manager.poll('sub-1', never).then((r) => (result = r));
    await settle();
    clock.advance(10 * MINUTE - 1);
    await settle();
    expect(result).toBeUndefined();
    clock.advance(1);
    await settle();
    expect(result?.kind).toBe('running');
    expect(manager.describePoll(result!).content).toBe(
      'sub-agent sub-1 still running after 10m00s, 1 tool calls, ~0 context tokens; no progress for 10m00s',
    );
  });

  it('a job waiting for the user (an approval) is not stalled; the answer counts as progress, published', async () => {
    const { manager, clock, event, boundary, events } = setup();
    manager.start('a');
    await settle();
    event('sub-1', bash);
    let answer = (_: string) => {};
    const asked = manager.stalls.whileAsking('sub-1', () => new Promise<string>((resolve) => (answer = resolve)));
    clock.advance(20 * MINUTE);
    expect(boundary()).toEqual([]);
    const before = events.length;
    answer('allow');
    expect(await asked).toBe('allow');
    expect(manager.get('sub-1').lastEventAt).toBe(20 * MINUTE);
    expect(events.slice(before)).toEqual([
      { type: 'job_state', job: expect.objectContaining({ id: 'sub-1', lastEventAt: 20 * MINUTE }) },
    ]);
    clock.advance(5 * MINUTE);
    expect(boundary()).toEqual([
      expect.stringMatching(/^sub-1 has made no progress for 5m00s: last a bash call \(npm test\), still running/),
    ]);
  });

  it('a job paused by a rate limit is not stalled, however long the pause; after it, the wait starts again', async () => {
    const { manager, clock, event, boundary } = setup();
    manager.start('run the tests');
    await settle();
    event('sub-1', { type: 'turn_start', turn: 1 });
    event('sub-1', { type: 'rate_limit', waiting: true, until: 9 * MINUTE, reason: 'rate limited (429)' });
    clock.advance(9 * MINUTE);
    expect(boundary()).toEqual([]);
    event('sub-1', { type: 'rate_limit', waiting: false });
    clock.advance(5 * MINUTE);
    expect(boundary()).toEqual([expect.stringMatching(/^sub-1 has made no progress for 5m00s/)]);
  });

  it('leaves no timer behind once jobs end or the session closes', async () => {
    const { manager, runner, clock } = setup();
    manager.start('a');
    manager.start('b');
    await settle();
    expect(clock.pending()).toBe(2);
    runner.finish('sub-1');
    await settle();
    expect(clock.pending()).toBe(1);
    const closing = manager.close();
    await settle();
    clock.advance(2000);
    await closing;
    expect(clock.pending()).toBe(0);
  });
});
