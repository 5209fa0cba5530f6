import type { ShellExit, ShellHandle, ShellStopReason, ShellWrite } from '../../src/core/tools/shell-process.js';

/**
 * A ShellHandle the test prints for and ends by hand; `stops` records every stop it got and
 * `writes` what reached its stdin. `input: false` is a shell without stdin (moved from the
 * foreground); `closeInput` is a process that closed it; `answerWrites` decides what a write does.
 */
export function fakeShell(options: { input?: boolean } = {}) {
  const listeners = new Set<(chunk: string) => void>();
  let resolve: (exit: ShellExit) => void = () => {};
  let exited = false;
  let inputClosed = false;
  let answer: ((text: string) => ShellWrite) | undefined;
  const ended = new Promise<ShellExit>((r) => (resolve = r));
  const stops: ShellStopReason[] = [];
  const writes: string[] = [];
  const end = (exit: ShellExit) => {
    exited = true;
    resolve(exit);
  };
  const handle: ShellHandle = {
    onOutput: (listener) => listeners.add(listener),
    offOutput: (listener) => listeners.delete(listener),
    ended,
    stop: (reason) => {
      stops.push(reason);
      end({ code: null, signal: 'SIGTERM', stopped: reason, reached: true, gaveUp: false });
    },
    write: (text) => {
      if (options.input === false) return { kind: 'refused', reason: 'no-stdin' };
      if (exited) return { kind: 'refused', reason: 'exited' };
      if (inputClosed) return { kind: 'refused', reason: 'closed' };
      const outcome = answer?.(text) ?? { kind: 'written' };
      if (outcome.kind !== 'refused') writes.push(text);
      return outcome;
    },
  };
  return {
    handle,
    stops,
    writes,
    print: (text: string) => listeners.forEach((listener) => listener(text)),
    exit: (code: number) => end({ code, signal: null, reached: false, gaveUp: false }),
    closeInput: () => {
      inputClosed = true;
    },
    answerWrites: (fn: (text: string) => ShellWrite) => {
      answer = fn;
    },
  };
}
