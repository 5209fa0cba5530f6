/** Keys typed while the app starts, kept for its input. */
export interface EarlyInput {
  /** Stops listening and returns what was typed; the terminal stays in raw mode for the app. */
  take(): string;
  /** Stops listening and gives the terminal back as it was (the app will not start). */
  release(): void;
}

const CTRL_C = '\u0003';

/**
 * Puts the terminal in raw mode at once and keeps what is typed until the app can take it.
 * Without this, keys typed during start-up are echoed by the terminal above the app, and the
 * line they form reaches the app (if at all) with a line feed for Enter, so it is never sent.
 * Ctrl+C during start-up still interrupts: raw mode turns off the terminal's own signal.
 */
export function captureEarlyInput(stdin: NodeJS.ReadStream, onInterrupt: () => void = interruptSelf(stdin)): EarlyInput {
  if (!stdin.isTTY) return { take: () => '', release: () => {} };
  let typed = '';
  let listening = true;
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
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.on('readable', onReadable);
  return {
    take() {
      stop();
      // Keys typed before raw mode was on come as a cooked line, Enter as a line feed.
      return typed.replace(/\r?\n/g, '\r');
    },
    release() {
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
