import { useInput } from 'ink';
import { isCtrl } from '../keymap.js';
import type { ConfirmPress } from './use-confirm-press.js';

export interface GlobalKeys {
  ctrlC: ConfirmPress;
  ctrlK: ConfirmPress;
  /** Sub-agents Ctrl+K would stop. */
  activeJobs: number;
  /** Esc interrupts the turn only when nothing else (approval, view) has the keys. */
  escapeInterrupts: boolean;
  onQuit: () => void;
  onStopAll: () => void;
  onInterrupt: () => void;
  onNothingToStop: () => void;
}

/** Keys that work everywhere: Ctrl+C twice quits, Ctrl+K twice stops sub-agents, Esc interrupts. */
export function useGlobalKeys(keys: GlobalKeys): void {
  useInput((input, key) => {
    if (isCtrl(input, key, 'c')) {
      keys.ctrlK.disarm();
      if (keys.ctrlC.press()) keys.onQuit();
      return;
    }
    if (isCtrl(input, key, 'k')) {
      keys.ctrlC.disarm();
      if (keys.activeJobs === 0) {
        keys.ctrlK.disarm();
        keys.onNothingToStop();
        return;
      }
      if (keys.ctrlK.press()) keys.onStopAll();
      return;
    }
    if (key.escape && keys.escapeInterrupts) keys.onInterrupt();
  });
}
