import { useEffect } from 'react';
import type { Clock } from '../clock.js';
import type { TurnRunner } from '../state/turn-runner.js';
import type { UiStore } from '../state/ui-store.js';
import { WakeScheduler } from '../../core/index.js';
import type { JobControl } from '../ui-session.js';

/**
 * Wake-on-complete: when a completion is owed to the model and the parent is idle, a turn
 * starts by itself (one per window, however many completions it covers). Does nothing when off.
 */
export function useWakeOnComplete(options: {
  enabled: boolean;
  store: UiStore;
  /** The core's job manager: it knows which completions are owed to the model. */
  jobs: Pick<JobControl, 'undelivered'>;
  runner: TurnRunner;
  clock: Clock;
  windowMs: number;
}): void {
  const { enabled, store, jobs, runner, clock, windowMs } = options;
  useEffect(() => {
    if (!enabled) return;
    const owed = () => jobs.undelivered().length > 0;
    const idle = () => runner.snapshot().busy === undefined;
    const scheduler = new WakeScheduler({ windowMs, isIdle: idle, owed, wake: () => runner.wake(), timers: clock });
    // A completion that arrives while idle, or one still owed when a turn ends (it landed after
    // the turn's last step boundary): either is the moment to wake.
    const unsubscribeStore = store.onBatch(() => {
      if (owed()) scheduler.completed();
    });
    let wasBusy = !idle();
    const unsubscribeRunner = runner.subscribe(() => {
      const busy = !idle();
      if (wasBusy && !busy && owed()) scheduler.completed();
      wasBusy = busy;
    });
    return () => {
      unsubscribeStore();
      unsubscribeRunner();
      scheduler.dispose();
    };
  }, [enabled, store, jobs, runner, clock, windowMs]);
}
