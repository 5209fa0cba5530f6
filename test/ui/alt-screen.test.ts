import { describe, expect, it } from 'vitest';
import { AltScreen, ENTER_ALT_SCREEN, LEAVE_ALT_SCREEN } from '../../src/ui/alt-screen.js';
import { settle } from './harness.js';

describe("the terminal's alternate screen, in step with Ink's frames", () => {
  it('enters once; leaves only after a frame later than the one asked for, then says so', async () => {
    const screen = new AltScreen();
    const written: string[] = [];
    const write = (data: string) => written.push(data);
    screen.enter(write);
    screen.enter(write);
    expect(written).toEqual([ENTER_ALT_SCREEN]);
    expect(screen.active()).toBe(true);

    const since = screen.frame();
    let left = 0;
    screen.leaveAfter(since, write, () => (left += 1));
    // No frame yet: the tall frame is still Ink's last, so the screen stays.
    await settle();
    expect(written).toEqual([ENTER_ALT_SCREEN]);
    expect(left).toBe(0);
    screen.rendered();
    // Not inside Ink's render: after it returns, when the new frame is the one Ink keeps.
    expect(written).toEqual([ENTER_ALT_SCREEN]);
    await settle();
    expect(written).toEqual([ENTER_ALT_SCREEN, LEAVE_ALT_SCREEN]);
    expect(left).toBe(1);
    expect(screen.active()).toBe(false);
  });

  it('leaves at once when the frame was computed already (in the commit that asked)', () => {
    const screen = new AltScreen();
    const written: string[] = [];
    screen.enter((data) => written.push(data));
    const since = screen.frame();
    screen.rendered();
    let left = false;
    screen.leaveAfter(
      since,
      (data) => written.push(data),
      () => (left = true),
    );
    expect(written.at(-1)).toBe(LEAVE_ALT_SCREEN);
    expect(left).toBe(true);
  });

  it('at a signal, erases the live area and comes back to the normal screen, only when it is on', () => {
    const screen = new AltScreen();
    const calls: string[] = [];
    screen.restore(
      () => calls.push('clear'),
      (data) => calls.push(data),
    );
    expect(calls).toEqual([]);
    screen.enter(() => {});
    screen.restore(
      () => calls.push('clear'),
      (data) => calls.push(data),
    );
    expect(calls).toEqual(['clear', LEAVE_ALT_SCREEN]);
    expect(screen.active()).toBe(false);
  });
});
