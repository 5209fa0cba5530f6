import { useCallback, useEffect, useRef, useState } from 'react';
import type { Clock } from '../clock.js';

/** A key that acts on its second press within `windowMs`; the first press only arms it. */
export interface ConfirmPress {
  armed: boolean;
  /** True when this press confirms (the key was armed); else it arms the key. */
  press(): boolean;
  disarm(): void;
}

export function useConfirmPress(windowMs: number, clock: Clock): ConfirmPress {
  const [armed, setArmed] = useState(false);
  const armedRef = useRef(false);
  const timer = useRef<unknown>(undefined);

  const disarm = useCallback(() => {
    if (timer.current !== undefined) clock.clearTimeout(timer.current);
    timer.current = undefined;
    armedRef.current = false;
    setArmed(false);
  }, [clock]);

  const press = useCallback((): boolean => {
    if (armedRef.current) {
      disarm();
      return true;
    }
    armedRef.current = true;
    setArmed(true);
    timer.current = clock.setTimeout(disarm, windowMs);
    return false;
  }, [disarm, windowMs, clock]);

  useEffect(
    () => () => {
      if (timer.current !== undefined) clock.clearTimeout(timer.current);
    },
    [clock],
  );
  return { armed, press, disarm };
}
