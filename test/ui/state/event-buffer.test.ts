import { describe, expect, it } from 'vitest';
import { EventBuffer } from '../../../src/ui/state/event-buffer.js';
import { FakeClock } from '../../support/fake-clock.js';

describe('EventBuffer', () => {
  it('hands over everything pushed within a window as one batch, in order', () => {
    const clock = new FakeClock();
    const batches: number[][] = [];
    const buffer = new EventBuffer<number>(150, (items) => batches.push(items), clock);
    for (let i = 0; i < 100; i++) buffer.push(i);
    expect(batches).toEqual([]);
    clock.advance(149);
    expect(batches).toEqual([]);
    clock.advance(1);
    expect(batches).toHaveLength(1);
    expect(batches[0]).toEqual(Array.from({ length: 100 }, (_, i) => i));
    buffer.push(100);
    clock.advance(150);
    expect(batches).toEqual([batches[0], [100]]);
  });

  it('flushes on demand and never after dispose', () => {
    const clock = new FakeClock();
    const batches: string[][] = [];
    const buffer = new EventBuffer<string>(150, (items) => batches.push(items), clock);
    buffer.push('a');
    buffer.flush();
    expect(batches).toEqual([['a']]);
    buffer.flush();
    expect(batches).toHaveLength(1);
    buffer.push('b');
    buffer.dispose();
    buffer.push('c');
    clock.advance(1000);
    expect(batches).toEqual([['a']]);
  });
});
