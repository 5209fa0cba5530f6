import { isCtrl } from '../keymap.js';
import { useKeys } from './use-keys.js';

export interface GlobalKeys {
  onCtrlC: () => void;
  onCtrlK: () => void;
  /** Ctrl+B: a running foreground bash command goes on in the background. */
  onCtrlB?: () => void;
  /** Esc: only when nothing else (an approval, a view) has the keys. */
  onEscape?: () => void;
  onShiftTab: () => void;
}

/** Keys that work everywhere; what each does depends on the moment (see App). */
export function useGlobalKeys(keys: GlobalKeys): void {
  useKeys((input, key) => {
    if (isCtrl(input, key, 'c')) return keys.onCtrlC();
    if (isCtrl(input, key, 'k')) return keys.onCtrlK();
    if (isCtrl(input, key, 'b')) return keys.onCtrlB?.();
    if (key.tab && key.shift) return keys.onShiftTab();
    if (key.escape) keys.onEscape?.();
    return undefined;
  });
}
