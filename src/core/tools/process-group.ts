import { type Timers, realTimers } from '../timers.js';

export { type Timers, realTimers };

/** Real timers that never hold the process open. */
const unrefTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: realTimers.clearTimeout,
};

/** Sends a signal to every process in the group `pid` leads; false when the group is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops a whole process group: SIGTERM now, SIGKILL after `graceMs` to whatever ignored it.
 * The real escalation timer is unref'd so it never holds the process open. False when nothing was left to stop.
 */
export function terminateGroup(pid: number, options: { graceMs?: number; timers?: Timers } = {}): boolean {
  if (!signalGroup(pid, 'SIGTERM')) return false;
  (options.timers ?? unrefTimers).setTimeout(() => {
    if (signalGroup(pid, 0)) signalGroup(pid, 'SIGKILL');
  }, options.graceMs ?? 1_000);
  return true;
}
