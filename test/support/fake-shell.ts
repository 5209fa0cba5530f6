import type { ShellExit, ShellHandle, ShellStopReason } from '../../src/core/tools/shell-process.js';

/** A ShellHandle the test prints for and ends by hand; `stops` records every stop it got. */
export function fakeShell() {
  const listeners = new Set<(chunk: string) => void>();
  let resolve: (exit: ShellExit) => void = () => {};
  const ended = new Promise<ShellExit>((r) => (resolve = r));
  const stops: ShellStopReason[] = [];
  const handle: ShellHandle = {
    onOutput: (listener) => listeners.add(listener),
    offOutput: (listener) => listeners.delete(listener),
    ended,
    stop: (reason) => {
      stops.push(reason);
      resolve({ code: null, signal: 'SIGTERM', stopped: reason, reached: true, gaveUp: false });
    },
  };
  return {
    handle,
    stops,
    print: (text: string) => listeners.forEach((listener) => listener(text)),
    exit: (code: number) => resolve({ code, signal: null, reached: false, gaveUp: false }),
  };
}
