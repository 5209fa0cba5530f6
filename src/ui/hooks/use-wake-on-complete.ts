import { useCallback, useEffect, useRef } from 'react';
import type { AgentEvent } from '../../core/loop/events.js';
import type { TurnRunner } from '../state/turn-runner.js';
import { WakeScheduler } from '../state/wake-scheduler.js';
import type { UiSession } from '../ui-session.js';

/**
 * When the session has wake-on-complete, a sub-agent completing while idle starts a turn by
 * itself; returns the function the app hands its job events to (it does nothing when off).
 */
export function useWakeOnComplete(session: UiSession, runner: TurnRunner, windowMs: number): (events: AgentEvent[]) => void {
  const scheduler = useRef<WakeScheduler | undefined>(undefined);
  useEffect(() => {
    if (!session.wakeOnComplete) return;
    const created = new WakeScheduler({
      windowMs,
      isIdle: () => runner.snapshot().busy === undefined,
      owed: () => session.owesNotice(),
      wake: () => runner.wake(),
    });
    scheduler.current = created;
    // A job that completed during a turn, after its last step boundary, is still owed when the
    // turn ends: the end of the turn is then the moment to wake for it.
    let wasBusy = runner.snapshot().busy !== undefined;
    const unsubscribe = runner.subscribe(() => {
      const busy = runner.snapshot().busy !== undefined;
      if (wasBusy && !busy && session.owesNotice()) created.completed();
      wasBusy = busy;
    });
    return () => {
      unsubscribe();
      created.dispose();
      scheduler.current = undefined;
    };
  }, [session, runner, windowMs]);

  return useCallback((events: AgentEvent[]) => {
    // Completion notices name their jobs; the owed check at wake time sorts out the rest.
    if (events.some((event) => event.type === 'job_notice' && event.jobIds.length > 0)) scheduler.current?.completed();
  }, []);
}
