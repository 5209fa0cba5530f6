import { Text } from 'ink';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { useClockTick } from '../../../src/ui/bindings/use-clock-tick.js';
import { FakeClock } from '../../support/fake-clock.js';
import { frame, mount, settle } from '../harness.js';

/** Shows the clock as of its last render, and how many renders it took; `poke` renders it for another reason. */
function Elapsed({ clock, active, pokes }: { clock: FakeClock; active: boolean; pokes: { poke?: () => void } }) {
  const [count, setCount] = useState(0);
  pokes.poke = () => setCount((n) => n + 1);
  useClockTick(clock, active, 1000);
  return <Text>{`${clock.now()} ms (${count} pokes)`}</Text>;
}

describe('useClockTick', () => {
  it('renders again once a second has passed without a render, and not while renders come anyway', async () => {
    const clock = new FakeClock();
    const pokes: { poke?: () => void } = {};
    const rendered = await mount(<Elapsed clock={clock} active pokes={pokes} />);
    expect(frame(rendered)).toBe('0 ms (0 pokes)');
    clock.advance(1000);
    await settle();
    expect(frame(rendered)).toBe('1000 ms (0 pokes)');

    // Renders for other reasons every 900 ms: each reads the clock, and no tick comes between them.
    const frames = () => (rendered.stdout as unknown as { frames: string[] }).frames.length;
    const before = frames();
    for (let i = 1; i <= 5; i += 1) {
      clock.advance(900);
      pokes.poke!();
      await settle();
      expect(frame(rendered)).toBe(`${1000 + 900 * i} ms (${i} pokes)`);
    }
    expect(frames() - before).toBe(5);
    clock.advance(999);
    await settle();
    expect(frames() - before).toBe(5);
    // A second after the last render, the tick.
    clock.advance(1);
    await settle();
    expect(frame(rendered)).toBe('6500 ms (5 pokes)');
    expect(clock.pending()).toBe(1);
  });

  it('keeps no timer while inactive', async () => {
    const clock = new FakeClock();
    const rendered = await mount(<Elapsed clock={clock} active={false} pokes={{}} />);
    clock.advance(5000);
    await settle();
    expect(frame(rendered)).toBe('0 ms (0 pokes)');
    expect(clock.pending()).toBe(0);
  });
});
