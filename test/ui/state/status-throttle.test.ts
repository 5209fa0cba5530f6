import { describe, expect, it } from 'vitest';
import { BatchThrottle } from '../../../src/ui/state/status-throttle.js';
import { FakeClock, settle } from '../../support/fake-clock.js';

/** A throttle whose runs wait for the test to end them, recording what started and when. */
function harness(options: { intervalMs?: number; maxBatch?: number } = {}) {
  const clock = new FakeClock();
  const started: Array<{ key: string; input: number; at: number; end: () => void }> = [];
  let running = 0;
  let most = 0;
  const throttle = new BatchThrottle<number>({
    clock,
    intervalMs: options.intervalMs ?? 300,
    maxBatch: options.maxBatch ?? 1,
    run: (key, input) =>
      new Promise<void>((resolve) => {
        running += 1;
        most = Math.max(most, running);
        started.push({
          key,
          input,
          at: clock.now(),
          end: () => {
            running -= 1;
            resolve();
          },
        });
      }),
  });
  const endAll = async () => {
    for (const run of started) run.end();
    await settle();
  };
  return { clock, throttle, started, endAll, most: () => most, running: () => running };
}

describe('BatchThrottle', () => {
  it('runs the first request at once, then at most once per interval, the newest input winning', async () => {
    const h = harness();
    h.throttle.request([['session', 1]]);
    expect(h.started.map((r) => [r.input, r.at])).toEqual([[1, 0]]);
    await h.endAll();
    h.clock.advance(100);
    h.throttle.request([['session', 2]]);
    h.throttle.request([['session', 3]]);
    h.throttle.request([['session', 4]]);
    expect(h.started).toHaveLength(1);
    h.clock.advance(199);
    expect(h.started).toHaveLength(1);
    h.clock.advance(1);
    expect(h.started.map((r) => [r.input, r.at])).toEqual([
      [1, 0],
      [4, 300],
    ]);
    expect(h.throttle.busy()).toBe(true);
    await h.endAll();
    expect(h.throttle.busy()).toBe(false);
    expect(h.clock.pending()).toBe(0);
  });

  it('never starts a second run while one is under way: a slow command makes the newest request wait for it', async () => {
    const h = harness();
    h.throttle.request([['session', 1]]);
    for (let i = 2; i <= 20; i += 1) {
      h.clock.advance(400);
      h.throttle.request([['session', i]]);
    }
    // Eight seconds on, the first run is still going: nothing else started, nothing piled up.
    expect(h.started.map((r) => r.input)).toEqual([1]);
    expect(h.most()).toBe(1);
    h.started[0]!.end();
    await settle();
    expect(h.started.map((r) => r.input)).toEqual([1, 20]);
    await h.endAll();
    expect(h.started).toHaveLength(2);
  });

  it('runs at most maxBatch keys per batch, those that ran longest ago first, and no key twice within the interval', async () => {
    const h = harness({ maxBatch: 4 });
    const fifty = Array.from({ length: 50 }, (_, i) => [`sub-${i + 1}`, i] as const);
    h.throttle.request(fifty);
    expect(h.started.map((r) => r.key)).toEqual(['sub-1', 'sub-2', 'sub-3', 'sub-4']);
    await h.endAll();
    // Every job asks again at once (a storm of events): the next batch waits for the interval.
    h.throttle.request(fifty);
    expect(h.started).toHaveLength(4);
    h.clock.advance(300);
    // Those never run go before those that ran.
    expect(h.started.slice(4).map((r) => r.key)).toEqual(['sub-5', 'sub-6', 'sub-7', 'sub-8']);
    // Over three seconds, with every run quick: at most 4 processes per 300 ms, never more than 4 at once.
    for (let t = 0; t < 10; t += 1) {
      await h.endAll();
      h.throttle.request(fifty);
      h.clock.advance(300);
    }
    await h.endAll();
    expect(h.started.length).toBeLessThanOrEqual(4 * 12);
    expect(h.most()).toBe(4);
    const byKey = new Map<string, number[]>();
    for (const run of h.started) byKey.set(run.key, [...(byKey.get(run.key) ?? []), run.at]);
    for (const times of byKey.values()) {
      for (let i = 1; i < times.length; i += 1) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(300);
    }
  });

  it('forgets the requests of keys no longer wanted (rows that left the screen)', async () => {
    const h = harness({ maxBatch: 1 });
    h.throttle.request([
      ['sub-1', 1],
      ['sub-2', 2],
      ['sub-3', 3],
    ]);
    h.throttle.retain(new Set(['sub-1', 'sub-3']));
    await h.endAll();
    h.clock.advance(300);
    await h.endAll();
    h.clock.advance(300);
    await h.endAll();
    expect(h.started.map((r) => r.key)).toEqual(['sub-1', 'sub-3']);
  });

  it('does nothing more once disposed: its timer is cleared, requests are ignored', async () => {
    const h = harness();
    h.throttle.request([['session', 1]]);
    h.throttle.request([['session', 2]]);
    await h.endAll();
    expect(h.clock.pending()).toBe(1);
    h.throttle.dispose();
    expect(h.clock.pending()).toBe(0);
    h.throttle.request([['session', 3]]);
    h.clock.advance(1000);
    expect(h.started.map((r) => r.input)).toEqual([1]);
  });

  it('a run that throws, or rejects, ends its batch like any other', async () => {
    const clock = new FakeClock();
    const seen: number[] = [];
    const throttle = new BatchThrottle<number>({
      clock,
      intervalMs: 300,
      maxBatch: 1,
      run: (_key, input) => {
        seen.push(input);
        if (input === 1) throw new Error('sync');
        return Promise.reject(new Error('async'));
      },
    });
    throttle.request([['k', 1]]);
    await settle();
    throttle.request([['k', 2]]);
    clock.advance(300);
    await settle();
    throttle.request([['k', 3]]);
    clock.advance(300);
    expect(seen).toEqual([1, 2, 3]);
  });
});
