/** Keys typed while the app starts, kept for its input. */
export interface EarlyInput {
  /** Stops listening and returns what was typed; the terminal stays in raw mode for the app. */
  take(): string;
  /** Stops listening and gives the terminal back as it was (the app will not start). */
  release(): void;
  /**
   * While `use` runs, another reader (the trust prompt) owns the terminal's keys: what was
   * typed before stays held for the app, and holding starts again once `use` is done.
   */
  lend<T>(use: () => Promise<T>): Promise<T>;
}

const CTRL_C = '\u0003';

/**
 * Puts the terminal in raw mode at once and keeps what is typed until the app can take it.
 * Without this, keys typed during start-up are echoed by the terminal above the app, and the
 * line they form reaches the app (if at all) with a line feed for Enter, so it is never sent.
 * Ctrl+C during start-up still interrupts: raw mode turns off the terminal's own signal.
 */
export function captureEarlyInput(stdin: NodeJS.ReadStream, onInterrupt: () => void = interruptSelf(stdin)): EarlyInput {
  if (!stdin.isTTY) return { take: () => '', release: () => {}, lend: (use) => use() };
  let typed = '';
  let listening = false;
  let finished = false;
  const onReadable = () => {
    let chunk: string | Buffer | null;
    while ((chunk = stdin.read() as string | Buffer | null) !== null) {
      const text = chunk.toString();
      if (text.includes(CTRL_C)) {
        stop();
        onInterrupt();
        return;
      }
      typed += text;
    }
  };
  const stop = () => {
    if (!listening) return;
    listening = false;
    stdin.removeListener('readable', onReadable);
  };
  const listen = () => {
    stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    // The other reader (Ink) unrefs stdin when it lets go.
    stdin.ref();
    listening = true;
    stdin.on('readable', onReadable);
  };
  listen();
  return {
    async lend(use) {
      // Two 'readable' listeners would race for each chunk: the first one reads it all.
      stop();
      try {
        return await use();
      } finally {
        if (!finished) listen();
      }
    },
    take() {
      finished = true;
      stop();
      // Keys typed before raw mode was on come as a cooked line, Enter as a line feed.
      return typed.replace(/\r?\n/g, '\r');
    },
    release() {
      finished = true;
      stop();
      stdin.setRawMode(false);
      stdin.pause();
      // Reading started a handle that would keep the process alive.
      stdin.unref();
    },
  };
}

function interruptSelf(stdin: NodeJS.ReadStream): () => void {
  return () => {
    stdin.setRawMode(false);
    stdin.pause();
    stdin.unref();
    process.kill(process.pid, 'SIGINT');
  };
}
