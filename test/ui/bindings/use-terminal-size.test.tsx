import { Text } from 'ink';
import { describe, expect, it } from 'vitest';
import { CLEAR_TERMINAL, useTerminalSize } from '../../../src/ui/bindings/use-terminal-size.js';
import { FakeClock } from '../../support/fake-clock.js';
import { frame, mount, settle } from '../harness.js';

function Size({ clock, hold }: { clock: FakeClock; hold?: boolean }) {
  const { width, height, generation } = useTerminalSize(clock, { hold });
  return <Text>{`${width}x${height} #${generation}`}</Text>;
}

describe('useTerminalSize', () => {
  it('follows resizes, and clears and redraws once when the width settles at a new value', async () => {
    const clock = new FakeClock();
    const rendered = await mount(<Size clock={clock} />);
    const stdout = rendered.stdout as unknown as NodeJS.EventEmitter & { frames: string[] };
    expect(frame(rendered)).toBe('100xInfinity #0');
    const resize = (columns: number, rows: number) => {
      Object.defineProperty(stdout, 'columns', { value: columns, configurable: true });
      Object.defineProperty(stdout, 'rows', { value: rows, configurable: true });
      stdout.emit('resize');
    };
    // A drag: three sizes in quick succession; the height follows at once, the redraw waits.
    resize(80, 30);
    resize(60, 20);
    await settle();
    expect(frame(rendered)).toBe('100x20 #0');
    resize(40, 14);
    clock.advance(99);
    await settle();
    expect(stdout.frames.filter((f) => f.includes(CLEAR_TERMINAL))).toHaveLength(0);
    clock.advance(1);
    await settle();
    expect(frame(rendered)).toBe('40x14 #1');
    expect(stdout.frames.filter((f) => f.includes(CLEAR_TERMINAL))).toHaveLength(1);
    // A taller screen: nothing to redraw; a shorter one redraws.
    resize(40, 30);
    clock.advance(100);
    await settle();
    expect(frame(rendered)).toBe('40x30 #1');
    expect(stdout.frames.filter((f) => f.includes(CLEAR_TERMINAL))).toHaveLength(1);
    resize(40, 12);
    clock.advance(100);
    await settle();
    expect(frame(rendered)).toBe('40x12 #2');
    expect(stdout.frames.filter((f) => f.includes(CLEAR_TERMINAL))).toHaveLength(2);
  });

  it('while a full-screen view holds it, a new width waits to redraw until the view is gone, then redraws once', async () => {
    const clock = new FakeClock();
    const rendered = await mount(<Size clock={clock} hold />);
    const stdout = rendered.stdout as unknown as NodeJS.EventEmitter & { frames: string[] };
    const clears = () => stdout.frames.filter((f) => f.includes(CLEAR_TERMINAL)).length;
    Object.defineProperty(stdout, 'columns', { value: 70, configurable: true });
    Object.defineProperty(stdout, 'rows', { value: 20, configurable: true });
    stdout.emit('resize');
    clock.advance(100);
    await settle();
    // The size is known at once (the view draws for it); the transcript is not printed again on the alternate screen.
    expect(frame(rendered)).toBe('70x20 #0');
    expect(clears()).toBe(0);
    rendered.rerender(<Size clock={clock} hold={false} />);
    await settle();
    expect(frame(rendered)).toBe('70x20 #1');
    expect(clears()).toBe(1);
    // Held and let go again with no resize between: nothing to redraw.
    rendered.rerender(<Size clock={clock} hold />);
    rendered.rerender(<Size clock={clock} hold={false} />);
    await settle();
    expect(frame(rendered)).toBe('70x20 #1');
    expect(clears()).toBe(1);
  });
});
