import { describe, expect, it } from 'vitest';
import { untilAborted } from '../../../src/core/platform/until-aborted.js';

const never = new Promise<string>(() => {});

describe('untilAborted', () => {
  it('settles as the promise does while the signal stays quiet', async () => {
    const signal = new AbortController().signal;
    await expect(untilAborted(Promise.resolve('value'), signal)).resolves.toBe('value');
    await expect(untilAborted(Promise.reject(new Error('broke')), signal)).rejects.toThrow('broke');
    // A rejection that is not an Error becomes one.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what the test is about
    await expect(untilAborted(Promise.reject('not an Error'), signal)).rejects.toThrow('not an Error');
  });

  it('rejects with the reason as soon as the signal aborts, the promise still pending', async () => {
    const stop = new AbortController();
    const waiting = untilAborted(never, stop.signal);
    stop.abort(new Error('stopped by the user'));
    await expect(waiting).rejects.toThrow('stopped by the user');
  });

  it('rejects at once for a signal that has already aborted (its abort event will not come again)', async () => {
    const stop = new AbortController();
    stop.abort(new Error('already stopped'));
    await expect(untilAborted(never, stop.signal)).rejects.toThrow('already stopped');
  });
});
