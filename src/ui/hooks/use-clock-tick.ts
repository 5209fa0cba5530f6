import { useEffect, useState } from 'react';
import type { Clock } from '../clock.js';

/** The time now, moved on every `everyMs` while `active` (elapsed times of running jobs). */
export function useClockTick(clock: Clock, active: boolean, everyMs = 1000): number {
  const [now, setNow] = useState(clock.now);
  useEffect(() => {
    setNow(clock.now());
    if (!active) return;
    let handle: unknown;
    const tick = () => {
      setNow(clock.now());
      handle = clock.setTimeout(tick, everyMs);
    };
    handle = clock.setTimeout(tick, everyMs);
    return () => clock.clearTimeout(handle);
  }, [clock, active, everyMs]);
  return now;
}
