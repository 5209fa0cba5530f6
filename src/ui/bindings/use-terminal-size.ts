import { useStdout } from 'ink';
import { useEffect, useRef, useState } from 'react';
import type { Clock } from '../clock.js';

/** Clears the screen and the scrollback, cursor home (what Ink itself writes for a full redraw). */
export const CLEAR_TERMINAL = '\u001B[2J\u001B[3J\u001B[H';

/** The terminal's size, and a count of width changes: the transcript prints afresh on each. */
export interface TerminalSize {
  width: number;
  /** Rows; Infinity when the stream does not say (not a terminal). */
  height: number;
  /** Bumped after the width changes; the transcript's <Static> is keyed on it. */
  generation: number;
}

/** Resize events closer together than this are one resize (a window being dragged). */
const SETTLE_MS = 100;

/**
 * The terminal's size, updated on resize. A width change also clears the terminal and makes
 * the transcript print again: Ink erases its live area by the line count it drew at the old
 * width, but a terminal that reflows has already re-wrapped those lines into more (narrower)
 * or fewer (wider) rows, so the erase misses some or eats into the transcript. Nothing short of
 * a full redraw knows where the live area now starts, so the app redraws once the size settles.
 * A shorter screen redraws too: until the live area shrinks to fit, Ink repaints everything it
 * ever printed (its full-screen path), and the fresh print puts one clean copy back.
 */
export function useTerminalSize(clock: Clock, options: { hold?: boolean } = {}): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => ({ ...readSize(stdout), generation: 0 }));
  // While a full-screen view is up (on the alternate screen), the redraw waits for it to go.
  const held = useRef({ hold: options.hold === true, pending: false });
  useEffect(() => {
    held.current.hold = options.hold === true;
    if (options.hold || !held.current.pending) return;
    held.current.pending = false;
    stdout.write(CLEAR_TERMINAL);
    setSize((before) => ({ ...before, generation: before.generation + 1 }));
  }, [options.hold, stdout]);
  useEffect(() => {
    let drawn = readSize(stdout);
    let handle: unknown;
    const settled = () => {
      handle = undefined;
      const now = readSize(stdout);
      const redraw = now.width !== drawn.width || (now.height < drawn.height && Number.isFinite(drawn.height));
      drawn = now;
      const wait = redraw && held.current.hold;
      if (wait) held.current.pending = true;
      if (redraw && !wait) stdout.write(CLEAR_TERMINAL);
      setSize((before) => ({ ...now, generation: before.generation + (redraw && !wait ? 1 : 0) }));
    };
    const onResize = () => {
      // Rows matter at once (the live area must fit); the redraw waits for the size to settle.
      setSize((before) => ({ ...before, height: readSize(stdout).height }));
      if (handle !== undefined) clock.clearTimeout(handle);
      handle = clock.setTimeout(settled, SETTLE_MS);
    };
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
      if (handle !== undefined) clock.clearTimeout(handle);
    };
  }, [stdout, clock]);
  return size;
}

function readSize(stdout: NodeJS.WriteStream): { width: number; height: number } {
  return { width: stdout.columns || 80, height: stdout.rows || Infinity };
}
