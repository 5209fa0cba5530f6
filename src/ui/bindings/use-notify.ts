import { useStdout } from 'ink';
import { useEffect, useRef } from 'react';
import { FOCUS_IN, FOCUS_OUT } from '../state/input-keys.js';
import type { UiStore } from '../state/ui-store.js';
import { useKeys } from './use-keys.js';

/** Asks the terminal to report focus changes (`ESC[I` in, `ESC[O` out). */
export const FOCUS_REPORTING_ON = '\u001B[?1004h';
export const FOCUS_REPORTING_OFF = '\u001B[?1004l';

/** The bell, or an OSC 9 desktop notification (iTerm2, WezTerm, kitty, Windows Terminal…). */
export function notification(mode: 'bell' | 'osc9', text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters would end the sequence early
  return mode === 'bell' ? '\u0007' : `\u001B]9;${text.replace(/[\u0000-\u001f]/g, ' ')}\u0007`;
}

/**
 * Tells the user when a turn or a sub-agent finishes while the terminal is not in front: the
 * bell or OSC 9 (setting `notify`). The terminal's focus reports say where it is; one that
 * never reports counts as focused, so nothing rings for nothing.
 */
export function useNotify(options: { store: UiStore; mode: 'bell' | 'osc9' | 'off' }): void {
  const { store, mode } = options;
  const { stdout } = useStdout();
  const focused = useRef(true);
  useKeys((input) => {
    if (input === FOCUS_OUT) focused.current = false;
    else if (input === FOCUS_IN) focused.current = true;
  });
  useEffect(() => {
    if (mode === 'off') return;
    return store.onBatch((items) => {
      if (focused.current) return;
      const texts: string[] = [];
      for (const item of items) {
        if (item.kind !== 'event') continue;
        const { event } = item.item;
        if (event.type === 'run_end')
          texts.push(event.cause.kind === 'completed' ? 'outrider: the turn finished' : 'outrider: the turn stopped');
        if (event.type === 'job_state' && (event.job.state === 'done' || event.job.state === 'error')) {
          texts.push(`outrider: ${event.job.id} ${event.job.state === 'done' ? 'finished' : 'failed'}`);
        }
      }
      // One notification per batch, however much ended in it.
      if (texts.length) stdout.write(notification(mode, texts.join('; ')));
    });
  }, [store, mode, stdout]);
}
