import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { captureEarlyInput } from '../../src/start/early-input.js';

/** Just enough of a terminal's stdin: raw mode, readable chunks. */
class FakeTty extends EventEmitter {
  isTTY = true;
  raw = false;
  paused = false;
  private chunks: string[] = [];
  setRawMode(on: boolean) {
    this.raw = on;
    return this;
  }
  setEncoding() {
    return this;
  }
  pause() {
    this.paused = true;
    return this;
  }
  unref() {
    return this;
  }
  ref() {
    return this;
  }
  read(): string | null {
    return this.chunks.shift() ?? null;
  }
  type(text: string) {
    this.chunks.push(text);
    this.emit('readable');
  }
}

const capture = (tty: FakeTty, onInterrupt?: () => void) => captureEarlyInput(tty as unknown as NodeJS.ReadStream, onInterrupt);

describe('keys typed during start-up', () => {
  it('are held in raw mode and handed over, Enter of a cooked line as a carriage return', () => {
    const tty = new FakeTty();
    const early = capture(tty);
    expect(tty.raw).toBe(true);
    tty.type('hello');
    tty.type(' early\n');
    tty.type('and more\r');
    expect(early.take()).toBe('hello early\rand more\r');
    // After the hand-over the app reads stdin itself.
    tty.type('later');
    expect(tty.listenerCount('readable')).toBe(0);
    expect(tty.raw).toBe(true);
  });

  it('lends the keys to the trust prompt: held keys stay for the app, the prompt reads its own, holding resumes after', async () => {
    const tty = new FakeTty();
    const early = capture(tty);
    tty.type('fix the bug\r');
    const prompt: string[] = [];
    const answer = await early.lend(async () => {
      // Ink attaches its reader, reads, and turns raw mode off as it unmounts.
      const onReadable = () => {
        let chunk: string | null;
        while ((chunk = tty.read()) !== null) prompt.push(chunk);
      };
      tty.on('readable', onReadable);
      tty.type('y');
      tty.removeListener('readable', onReadable);
      tty.setRawMode(false);
      return 'trusted';
    });
    expect(answer).toBe('trusted');
    expect(prompt).toEqual(['y']);
    expect(tty.raw).toBe(true);
    tty.type('and test it\r');
    expect(early.take()).toBe('fix the bug\rand test it\r');
  });

  it('does not listen again after a lend when the keys were handed over meanwhile', async () => {
    const tty = new FakeTty();
    const early = capture(tty);
    await early.lend(async () => {
      early.release();
    });
    expect(tty.listenerCount('readable')).toBe(0);
    expect(tty.raw).toBe(false);
  });

  it('gives the terminal back when the app will not start', () => {
    const tty = new FakeTty();
    capture(tty).release();
    expect(tty.raw).toBe(false);
    expect(tty.paused).toBe(true);
    expect(tty.listenerCount('readable')).toBe(0);
  });

  it('still lets Ctrl+C interrupt the start', () => {
    const tty = new FakeTty();
    let interrupted = 0;
    const early = capture(tty, () => (interrupted += 1));
    tty.type('oops\u0003');
    expect(interrupted).toBe(1);
    expect(early.take()).toBe('');
  });

  it('does nothing when stdin is not a terminal', () => {
    const tty = new FakeTty();
    tty.isTTY = false;
    expect(capture(tty).take()).toBe('');
    expect(tty.raw).toBe(false);
  });
});
