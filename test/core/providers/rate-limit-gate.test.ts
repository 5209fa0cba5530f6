/**
 * The rate-limit gate on a fake clock: one pause for every call of a provider, fewer calls at
 * once after a limit and more again after successes, a call's waits bounded, a stop that ends a
 * wait at once. No real time passes.
 */
import { describe, expect, it } from 'vitest';
import type { ErrorContext } from '../../../src/core/providers/errors.js';
import { type GatePermit, RateLimitGate } from '../../../src/core/providers/rate-limit-gate.js';
import { passGate, type RateLimitOptions } from '../../../src/core/providers/rate-limit-wait.js';
import type { StreamEvent } from '../../../src/core/providers/types.js';
import { FakeClock, settle } from '../../support/fake-clock.js';

const context: ErrorContext = { label: 'Anthropic', keyEnv: 'ANTHROPIC_API_KEY', model: 'm', apiKey: 'sk-gate-test-0001' };
const LIMIT = { reason: 'rate limited (429)', status: 429 };

function gateOn(clock: FakeClock, maxConcurrent?: number) {
  // Backoff without jitter: 1 s, 2 s, 4 s … by limits in a row.
  return new RateLimitGate({ clock, ...(maxConcurrent ? { maxConcurrent } : {}), backoff: (n) => 1000 * 2 ** (n - 1) });
}

/** Lets `n` calls through a gate that holds none back. */
function through(gate: RateLimitGate, n: number): GatePermit[] {
  return Array.from({ length: n }, () => {
    const permit = gate.enter().permit;
    expect(permit).toBeDefined();
    return permit!;
  });
}

/** One call's pass through the gate, drained in the background: its events, its permit or its error. */
function pass(options: RateLimitOptions, clock: FakeClock, signal = new AbortController().signal, waitedMs = 0) {
  const events: StreamEvent[] = [];
  const waits = { waitedMs };
  const run = {
    events,
    waits,
    permit: undefined as GatePermit | undefined,
    error: undefined as unknown,
    settled: false,
  };
  void (async () => {
    const generator = passGate(options, signal, waits, clock, context);
    try {
      for (;;) {
        const next = await generator.next();
        if (next.done) {
          run.permit = next.value;
          break;
        }
        events.push(next.value);
      }
    } catch (error) {
      run.error = error;
    } finally {
      run.settled = true;
    }
  })();
  return run;
}

describe('RateLimitGate', () => {
  it('lets every call through at once while no limit holds, with no timer', () => {
    const clock = new FakeClock();
    const gate = gateOn(clock, 5);
    through(gate, 8);
    expect(gate.state()).toEqual({ running: 8, waiting: 0, pausedUntil: 0 });
    expect(clock.pending()).toBe(0);
  });

  it("a 429 pauses new calls for the server's retry-after; calls in flight keep their places", () => {
    const clock = new FakeClock();
    const gate = gateOn(clock);
    const [limited, inFlight] = through(gate, 2);
    expect(limited!.limited({ ...LIMIT, retryAfterMs: 12_000 })).toBe(12_000);
    limited!.release();

    const next = gate.enter();
    expect(next.waiting()).toEqual({ until: 12_000, reason: 'rate limited (429)' });
    clock.advance(11_999);
    expect(next.permit).toBeUndefined();
    clock.advance(1);
    // The pause is over, but one call at once now (half of the two), and the call in flight,
    // never cut, still has it: the next waits for the place, with no pause to count down.
    expect(gate.state()).toMatchObject({ running: 1, cap: 1 });
    expect(next.waiting()).toEqual({ reason: 'rate limited (429)' });
    inFlight!.succeeded();
    inFlight!.release();
    expect(next.permit).toBeDefined();
  });

  it('without a retry-after, pauses for a backoff that grows with limits in a row and resets on an answer', () => {
    const clock = new FakeClock();
    const gate = gateOn(clock);
    const first = through(gate, 1)[0]!;
    expect(first.limited(LIMIT)).toBe(1000);
    first.release();
    clock.advance(1000);
    const second = through(gate, 1)[0]!;
    expect(second.limited(LIMIT)).toBe(2000);
    second.release();
    clock.advance(2000);
    const third = through(gate, 1)[0]!;
    third.succeeded();
    third.release();
    const fourth = through(gate, 1)[0]!;
    expect(fourth.limited(LIMIT)).toBe(1000);
  });

  it('a retry-after of 0 again and again still backs off, so the server is not asked again at once', () => {
    const clock = new FakeClock();
    const gate = gateOn(clock);
    const pauses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const permit = through(gate, 1)[0]!;
      pauses.push(permit.limited({ ...LIMIT, retryAfterMs: 0 }));
      permit.release();
      clock.advance(pauses.at(-1)!);
    }
    expect(pauses).toEqual([0, 1000, 2000, 4000]);
  });

  it('halves the calls at once after a limit, and grows back by one after each run of successes up to the session', () => {
    const clock = new FakeClock();
    const gate = gateOn(clock, 5);
    const permits = through(gate, 4);
    permits[0]!.limited({ ...LIMIT, retryAfterMs: 1000 });
    for (const permit of permits) permit.release();
    expect(gate.state().cap).toBe(2);

    const line = Array.from({ length: 6 }, () => gate.enter());
    clock.advance(1000);
    // Two of the six go; the others wait for a place, with no pause left to count down.
    expect(line.map((t) => t.permit !== undefined)).toEqual([true, true, false, false, false, false]);
    expect(line[2]!.waiting()).toEqual({ reason: 'rate limited (429)' });

    // Two answers (a run as long as the cap): three at once.
    for (const ticket of line.slice(0, 2)) {
      ticket.permit!.succeeded();
      ticket.permit!.release();
    }
    expect(gate.state().cap).toBe(3);
    expect(line.map((t) => t.permit !== undefined)).toEqual([true, true, true, true, true, false]);
    for (const ticket of line.slice(2, 5)) {
      ticket.permit!.succeeded();
      ticket.permit!.release();
    }
    expect(gate.state().cap).toBe(4);
    line[5]!.permit!.succeeded();
    line[5]!.permit!.release();
    for (const permit of through(gate, 3)) {
      permit.succeeded();
      permit.release();
    }
    // Back at the session's concurrency: no cap at all.
    expect(gate.state().cap).toBeUndefined();
    through(gate, 9);
  });

  it('never lets fewer than one call through', () => {
    const clock = new FakeClock();
    const gate = gateOn(clock, 5);
    for (let i = 0; i < 3; i++) {
      const permit = through(gate, 1)[0]!;
      permit.limited({ ...LIMIT, retryAfterMs: 0 });
      permit.release();
      clock.advance(10_000);
    }
    expect(gate.state().cap).toBe(1);
    expect(gate.enter().permit).toBeDefined();
  });

  it('two calls hitting 429 at once pause once, not twice, and halve the calls once', () => {
    const clock = new FakeClock();
    const gate = gateOn(clock, 9);
    const permits = through(gate, 8);
    clock.advance(500);
    expect(permits[0]!.limited({ ...LIMIT, retryAfterMs: 10_000 })).toBe(10_000);
    // The second came from a call let through before the first was counted: the same limit.
    expect(permits[1]!.limited({ ...LIMIT, retryAfterMs: 10_000 })).toBe(10_000);
    for (const permit of permits) permit.release();
    expect(gate.state()).toEqual({ running: 0, waiting: 0, cap: 4, pausedUntil: 10_500 });

    // A call let through after it that meets the limit again is a new limit: it halves again.
    clock.advance(10_000);
    const later = through(gate, 1)[0]!;
    later.limited({ ...LIMIT, retryAfterMs: 3000 });
    expect(gate.state().cap).toBe(1);
  });

  it('a later, longer retry-after moves the pause on; a shorter one does not shorten it', () => {
    const clock = new FakeClock();
    const gate = gateOn(clock);
    const [a, b, c] = through(gate, 3);
    a!.limited({ ...LIMIT, retryAfterMs: 5000 });
    b!.limited({ ...LIMIT, retryAfterMs: 2000 });
    expect(gate.state().pausedUntil).toBe(5000);
    c!.limited({ ...LIMIT, retryAfterMs: 8000 });
    expect(gate.state().pausedUntil).toBe(8000);
  });
});

describe('passGate', () => {
  const options = (gate: RateLimitGate, maxWaitMs = 600_000): RateLimitOptions => ({ gate, maxWaitMs, overloaded: true });

  it('goes through without a word when nothing holds it back', async () => {
    const clock = new FakeClock();
    const run = pass(options(gateOn(clock)), clock);
    await settle();
    expect(run.permit).toBeDefined();
    expect(run.events).toEqual([]);
  });

  it('says what it waits for and until when, again when the pause moves, and once it goes on', async () => {
    const clock = new FakeClock();
    const gate = gateOn(clock);
    const [first, second] = through(gate, 2);
    first!.limited({ ...LIMIT, retryAfterMs: 12_000 });
    first!.release();
    const run = pass(options(gate), clock);
    await settle();
    expect(run.events).toEqual([{ type: 'rate_limit', waiting: true, until: 12_000, reason: 'rate limited (429)' }]);

    clock.advance(4000);
    second!.limited({ reason: 'overloaded (529)', status: 529, retryAfterMs: 20_000 });
    second!.release();
    await settle();
    expect(run.events.at(-1)).toEqual({ type: 'rate_limit', waiting: true, until: 24_000, reason: 'overloaded (529)' });

    clock.advance(19_999);
    await settle();
    expect(run.settled).toBe(false);
    clock.advance(1);
    await settle();
    expect(run.events.at(-1)).toEqual({ type: 'rate_limit', waiting: false });
    expect(run.permit).toBeDefined();
    expect(run.waits.waitedMs).toBe(24_000);
  });

  it('a stop during the pause ends the wait at once: it leaves the line, and no timer is left', async () => {
    const clock = new FakeClock();
    const gate = gateOn(clock);
    const permit = through(gate, 1)[0]!;
    permit.limited({ ...LIMIT, retryAfterMs: 60_000 });
    permit.release();
    const controller = new AbortController();
    const run = pass(options(gate), clock, controller.signal);
    await settle();
    expect(run.events).toHaveLength(1);

    controller.abort();
    await settle();
    expect(run.settled).toBe(true);
    expect(run.error).toMatchObject({ name: 'AbortError' });
    expect(clock.now()).toBe(0);
    expect(gate.state().waiting).toBe(0);
    expect(clock.pending()).toBe(0);
  });

  it('a stop just as it is let through gives the place back to the next in line', async () => {
    const clock = new FakeClock();
    const gate = gateOn(clock, 3);
    const first = through(gate, 2);
    first[0]!.limited({ ...LIMIT, retryAfterMs: 1000 });
    for (const permit of first) permit.release();
    // The cap is 1: one waits for the pause, one behind it for the place.
    const controller = new AbortController();
    const a = pass(options(gate), clock, controller.signal);
    const b = pass(options(gate), clock);
    await settle();
    clock.advance(1000);
    expect(gate.state()).toMatchObject({ running: 1, waiting: 1 });
    controller.abort();
    await settle();
    expect(a.error).toMatchObject({ name: 'AbortError' });
    expect(b.permit).toBeDefined();
    expect(gate.state()).toMatchObject({ running: 1, waiting: 0 });
  });

  it('a pause longer than what the call may still wait fails it at once, with the reason and the setting', async () => {
    const clock = new FakeClock();
    const gate = gateOn(clock);
    const permit = through(gate, 1)[0]!;
    permit.limited({ ...LIMIT, retryAfterMs: 86_400_000 });
    permit.release();
    const run = pass(options(gate), clock);
    await settle();
    expect(run.events).toEqual([]);
    expect((run.error as Error).message).toBe(
      'Anthropic: rate limited (429); calls to this provider pause 24h00m more, past the 10m00s one model call may wait ' +
        "for rate limits (rateLimitWaitMs; 0 ms waited so far): try again later, check the account's rate limits, " +
        'or raise rateLimitWaitMs in settings.',
    );
    expect(gate.state().waiting).toBe(0);
  });

  it("counts a call's waits together: the bound passes across pauses, and a wait for a place ends at it", async () => {
    const clock = new FakeClock();
    const gate = gateOn(clock);
    const holder = through(gate, 1)[0]!;
    holder.limited({ ...LIMIT, retryAfterMs: 30_000 });
    // The holder keeps its place (it is answering); the cap is 1, so after the pause the call
    // waits for that place, and the bound (it waited 9 minutes before) ends it a minute after it began to wait.
    const run = pass(options(gate, 10 * 60_000), clock, new AbortController().signal, 9 * 60_000);
    await settle();
    clock.advance(30_000);
    await settle();
    expect(run.events.at(-1)).toEqual({ type: 'rate_limit', waiting: true, reason: 'rate limited (429)' });
    clock.advance(29_999);
    await settle();
    expect(run.settled).toBe(false);
    clock.advance(1);
    await settle();
    expect((run.error as Error).message).toBe(
      'Anthropic: rate limited (429); this call has waited 10m00s for rate limits, the most one model call may ' +
        "(rateLimitWaitMs, 10m00s): try again later, check the account's rate limits, or raise rateLimitWaitMs in settings.",
    );
    expect((run.error as { options: { status?: number } }).options.status).toBe(429);
    holder.release();
    expect(gate.state()).toMatchObject({ running: 0, waiting: 0 });
  });

  it('a bound of 0 fails the call at the first limit', async () => {
    const clock = new FakeClock();
    const gate = gateOn(clock);
    const permit = through(gate, 1)[0]!;
    permit.limited({ reason: 'overloaded (529)', status: 529 });
    permit.release();
    const run = pass(options(gate, 0), clock);
    await settle();
    expect((run.error as Error).message).toMatch(/^Anthropic: overloaded \(529\); calls to this provider pause 1 s more/);
    expect((run.error as Error).message).toMatch(/: try again later or raise rateLimitWaitMs in settings\.$/);
  });
});
