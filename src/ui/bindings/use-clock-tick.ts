import { useEffect, useReducer } from 'react';
import type { Clock } from '../clock.js';

/**
 * Renders again every `everyMs` while `active`, so elapsed times of running jobs move; the
 * component reads `clock.now()` itself when it renders.
 */
export function useClockTick(clock: Clock, active: boolean, everyMs = 1000): void {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    if (!active) return;
    let handle: unknown;
    const next = () => {
      tick();
      handle = clock.setTimeout(next, everyMs);
    };
    handle = clock.setTimeout(next, everyMs);
    return () => clock.clearTimeout(handle);
  }, [clock, active, everyMs]);
}
