/** xterm's alternate screen (1049): the cursor saved and the screen switched, cleared, cursor home. */
export const ENTER_ALT_SCREEN = '\u001B[?1049h\u001B[H';
/** Back to the normal screen as it was, the cursor where it was saved. */
export const LEAVE_ALT_SCREEN = '\u001B[?1049l';

/**
 * The terminal's alternate screen, for a view that takes the whole screen (the job view), in
 * step with Ink's frames. Ink draws its live area below the transcript and redraws it by erasing
 * the lines it last drew; so the switches go through Ink's own writer (`useStdout().write`, which
 * erases the live area, writes, and draws the last frame again): entering, before the tall frame
 * is rendered; leaving, only once Ink has computed the small frame that goes back under the
 * transcript. A tall frame drawn on the normal screen would scroll the transcript away.
 *
 * `rendered` goes to Ink's `onRender`, so the app knows when a frame has been computed.
 */
export class AltScreen {
  private frames = 0;
  private waiting: (() => void)[] = [];
  private on = false;

  /** For Ink's `onRender` option: a frame was computed (Ink keeps it as its last once this returns). */
  readonly rendered = (): void => {
    this.frames += 1;
    const waiting = this.waiting.splice(0);
    // After Ink's render returns: by then the frame is the one it draws again.
    if (waiting.length > 0) queueMicrotask(() => waiting.forEach((then) => then()));
  };

  /** Frames computed so far. */
  frame(): number {
    return this.frames;
  }

  /** Whether the alternate screen is on. */
  active(): boolean {
    return this.on;
  }

  /** Switches to the alternate screen through `write` (Ink's writer). */
  enter(write: (data: string) => void): void {
    if (this.on) return;
    this.on = true;
    write(ENTER_ALT_SCREEN);
  }

  /**
   * Back to the normal screen through `write` once a frame later than `since` has been computed
   * (at once when one has), then `then`.
   */
  leaveAfter(since: number, write: (data: string) => void, then: () => void): void {
    const leave = () => {
      if (this.on) write(LEAVE_ALT_SCREEN);
      this.on = false;
      then();
    };
    if (this.frames > since) leave();
    else this.waiting.push(leave);
  }

  /**
   * At exit without the app's help (a signal): Ink's live area erased (`clear`, which leaves Ink
   * believing it is drawn, so its last frame is not drawn again) and the normal screen back.
   */
  restore(clear: () => void, write: (data: string) => void): void {
    if (!this.on) return;
    clear();
    write(LEAVE_ALT_SCREEN);
    this.on = false;
  }
}
