import { readFileSync, readdirSync } from 'node:fs';
import { type Timers, realTimers, unrefTimer } from '../timers.js';

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
export function terminateGroup(pid: number, graceMs = 1_000, timers: Timers = realTimers): boolean {
  if (!signalGroup(pid, 'SIGTERM')) return false;
  unrefTimer(
    timers.setTimeout(() => {
      if (signalGroup(pid, 0)) signalGroup(pid, 'SIGKILL');
    }, graceMs),
  );
  return true;
}

/**
 * The processes whose environment holds `name=value`: every descendant of a command that was
 * started with it, including those that left its process group (`setsid`, a daemon's double
 * fork), unless they cleared their environment. Linux only (read from /proc); elsewhere none.
 */
export function markedProcesses(name: string, value: string, procDir = '/proc'): number[] {
  let entries: string[];
  try {
    entries = readdirSync(procDir);
  } catch {
    return [];
  }
  const entry = Buffer.from(`${name}=${value}\0`);
  const pids: number[] = [];
  for (const entryName of entries) {
    const pid = Number(entryName);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`${procDir}/${pid}/environ`);
    } catch {
      continue; // gone, or not ours to read
    }
    const at = environ.indexOf(entry);
    if (at === 0 || (at > 0 && environ[at - 1] === 0)) pids.push(pid);
  }
  return pids;
}

/**
 * Stops every process marked with `name=value` (see markedProcesses): SIGTERM now, SIGKILL
 * after `graceMs` to those still marked then (a fresh look, so a pid reused meanwhile is spared
 * and a child forked meanwhile is not). How many were signalled.
 */
export function terminateMarked(name: string, value: string, graceMs = 1_000, timers: Timers = realTimers): number {
  const signalled = markedProcesses(name, value).filter((pid) => signal(pid, 'SIGTERM'));
  if (signalled.length > 0) {
    unrefTimer(timers.setTimeout(() => markedProcesses(name, value).forEach((pid) => signal(pid, 'SIGKILL')), graceMs));
  }
  return signalled.length;
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}
