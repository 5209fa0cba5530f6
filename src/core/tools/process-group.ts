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
 * The escalation timer is unref'd so it never holds the process open. False when nothing was left to stop.
 */
export function terminateGroup(pid: number, graceMs = 1_000): boolean {
  if (!signalGroup(pid, 'SIGTERM')) return false;
  const escalate = setTimeout(() => {
    if (signalGroup(pid, 0)) signalGroup(pid, 'SIGKILL');
  }, graceMs);
  escalate.unref();
  return true;
}
