import { describe, expect, it } from 'vitest';
import type { Timers } from '../../../src/core/platform/timers.js';
import { WakeScheduler } from '../../../src/core/jobs/wake-scheduler.js';

/** Timers the test fires by hand. */
function manualTimers() {
  const pending = new Map<number, () => void>();
  let next = 0;
  const timers: Timers = {
    setTimeout: (fn) => {
      next += 1;
      pending.set(next, fn);
      return next;
    },
    clearTimeout: (handle) => pending.delete(handle as number),
  };
  const fireAll = () => {
    const due = [...pending.values()];
    pending.clear();
    for (const fn of due) fn();
  };
  return { timers, pending, fireAll };
}

function setup() {
  const clock = manualTimers();
  const state = { idle: true, owed: true, wakes: 0 };
  const scheduler = new WakeScheduler({
    windowMs: 300,
    isIdle: () => state.idle,
    owed: () => state.owed,
    wake: () => (state.wakes += 1),
    timers: clock.timers,
  });
  return { clock, state, scheduler };
}

describe('WakeScheduler', () => {
  it('wakes once for completions that arrive within one window', () => {
    const { clock, state, scheduler } = setup();
    scheduler.completed();
    scheduler.completed();
    scheduler.completed();
    expect(clock.pending.size).toBe(1);
    expect(state.wakes).toBe(0);
    clock.fireAll();
    expect(state.wakes).toBe(1);
    // A later completion opens a new window.
    scheduler.completed();
    clock.fireAll();
    expect(state.wakes).toBe(2);
  });

  it('ignores a completion that arrives during a turn', () => {
    const { clock, state, scheduler } = setup();
    state.idle = false;
    scheduler.completed();
    expect(clock.pending.size).toBe(0);
    state.idle = true;
    clock.fireAll();
    expect(state.wakes).toBe(0);
  });

  it('does nothing when the window ends during a turn or with nothing owed', () => {
    const { clock, state, scheduler } = setup();
    scheduler.completed();
    state.idle = false;
    clock.fireAll();
    expect(state.wakes).toBe(0);

    state.idle = true;
    state.owed = false;
    scheduler.completed();
    clock.fireAll();
    expect(state.wakes).toBe(0);
  });

  it('cancels its window on dispose', () => {
    const { clock, state, scheduler } = setup();
    scheduler.completed();
    scheduler.dispose();
    expect(clock.pending.size).toBe(0);
    scheduler.completed();
    expect(clock.pending.size).toBe(0);
    expect(state.wakes).toBe(0);
  });
});
