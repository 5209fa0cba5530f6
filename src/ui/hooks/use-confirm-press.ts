import { useCallback, useEffect, useRef, useState } from 'react';

/** A key that acts on its second press within `windowMs`; the first press only arms it. */
export interface ConfirmPress {
  armed: boolean;
  /** True when this press confirms (the key was armed); else it arms the key. */
  press(): boolean;
  disarm(): void;
}

export function useConfirmPress(windowMs: number): ConfirmPress {
  const [armed, setArmed] = useState(false);
  const armedRef = useRef(false);
  const timer = useRef<NodeJS.Timeout | undefined>(undefined);

  const disarm = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = undefined;
    armedRef.current = false;
    setArmed(false);
  }, []);

  const press = useCallback((): boolean => {
    if (armedRef.current) {
      disarm();
      return true;
    }
    armedRef.current = true;
    setArmed(true);
    timer.current = setTimeout(disarm, windowMs);
    return false;
  }, [disarm, windowMs]);

  useEffect(() => () => clearTimeout(timer.current), []);
  return { armed, press, disarm };
}
