import { useEffect, useReducer } from 'react';
import type { Clock } from '../clock.js';

/**
 * Renders again once `everyMs` has passed without a render while `active`, so elapsed times of
 * running jobs move; the component reads `clock.now()` itself when it renders. The timer starts
 * afresh after every render: while events keep the screen busy (sub-agents streaming, ten
 * renders a second) each of those renders reads the clock, and a tick would only add a frame.
 */
export function useClockTick(clock: Clock, active: boolean, everyMs = 1000): void {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  // No dependency list: the effect runs after every render of the component.
  useEffect(() => {
    if (!active) return;
    const handle = clock.setTimeout(tick, everyMs);
    return () => clock.clearTimeout(handle);
  });
}
