import { readFileSync, readdirSync } from 'node:fs';
import { type Timers, realTimers } from './timers.js';

/** How often a stop under way looks whether anything it signalled is left, to end before its grace. */
export const STOP_POLL_MS = 50;

/**
 * Every command outrider starts carries `OUTRIDER_OWNER=<ownerMark()>`, naming the outrider
 * process: its descendants inherit it, so at exit it finds whatever they left running.
 */
export const OWNER_MARKER = 'OUTRIDER_OWNER';

/** This outrider process: its pid and when it started, so that another process given the same pid later is another owner. */
export function ownerMark(): string {
  return `${process.pid}-${Math.round(performance.timeOrigin)}`;
}

/**
 * A stop under way: SIGTERM sent, SIGKILL to whatever is left after the grace. Its timers are
 * not unref'd: they hold the process open, so an exit never comes between the two.
 */
export interface Termination {
  /** Something was there to signal. */
  reached: boolean;
  /** Resolves once nothing signalled is left (looked at every STOP_POLL_MS), or SIGKILL went to what was. */
  done: Promise<void>;
}

const nothingLeft = (): Termination => ({ reached: false, done: Promise.resolve() });

/** Sends a signal to every process in the group `pid` leads; false when the group is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Stops a whole process group: SIGTERM now, SIGKILL after `graceMs` if anything of it is left then. */
export function terminateGroup(pid: number, graceMs = 1_000, timers: Timers = realTimers): Termination {
  if (!signalGroup(pid, 'SIGTERM')) return nothingLeft();
  const done = escalate({
    left: () => signalGroup(pid, 0),
    kill: () => void signalGroup(pid, 'SIGKILL'),
    graceMs,
    timers,
  });
  return { reached: true, done };
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
 * Stops every process marked with `name=value` (see markedProcesses) and the process groups
 * they are in, so a member that cleared its environment goes with its group: SIGTERM now,
 * SIGKILL after `graceMs` to what is marked then (a fresh look, so a pid reused meanwhile is
 * spared and a child forked meanwhile is not) and to those groups. Marked processes descend from
 * a command started in a session of its own, so their groups hold nothing else; outrider's own
 * group is never signalled.
 */
export function terminateMarked(
  name: string,
  value: string,
  graceMs = 1_000,
  timers: Timers = realTimers,
  procDir = '/proc',
): Termination {
  const find = () => markedProcesses(name, value, procDir);
  const ownGroup = groupOf(process.pid, procDir);
  const groups = new Set<number>();
  const signalled = new Set<number>();
  const stop = (pids: number[]): void => {
    const marked = new Set(pids);
    for (const pid of pids) {
      const group = groupOf(pid, procDir);
      if (ownedGroup(group, marked, ownGroup) && !groups.has(group!)) {
        groups.add(group!);
        signalGroup(group!, 'SIGTERM');
      }
      if (signal(pid, 'SIGTERM')) signalled.add(pid);
    }
  };
  stop(find());
  if (signalled.size === 0 && groups.size === 0) return nothingLeft();
  const left = (): boolean => {
    for (const pid of signalled) if (!running(pid, procDir)) signalled.delete(pid);
    for (const group of groups) if (!signalGroup(group, 0)) groups.delete(group);
    if (signalled.size > 0 || groups.size > 0) return true;
    // All gone: one more look for any they forked meanwhile, which had no SIGTERM yet.
    stop(find());
    return signalled.size > 0;
  };
  const kill = (): void => killMarked(name, value, procDir, groups);
  return { reached: true, done: escalate({ left, kill, graceMs, timers }) };
}

/**
 * SIGKILL at once, no grace, to every process marked `name=value` and their process groups
 * (with `groups`, more groups to kill): for an exit that cannot wait.
 */
/**
 * Whether a marked process's group is one of ours to signal whole: its leader carries the mark
 * too (a command outrider started in a group of its own). A group whose leader is unmarked is
 * someone else's (an editor that ran the command in its terminal without a group of its own):
 * only the marked processes in it are signalled, never the editor.
 */
function ownedGroup(group: number | undefined, marked: ReadonlySet<number>, ownGroup: number | undefined): boolean {
  return group !== undefined && group > 1 && group !== ownGroup && marked.has(group);
}

function killMarked(name: string, value: string, procDir: string, groups: ReadonlySet<number> = new Set()): void {
  const ownGroup = groupOf(process.pid, procDir);
  const all = new Set(groups);
  const pids = markedProcesses(name, value, procDir);
  const marked = new Set(pids);
  for (const pid of pids) {
    const group = groupOf(pid, procDir);
    if (ownedGroup(group, marked, ownGroup)) all.add(group!);
    signal(pid, 'SIGKILL');
  }
  for (const group of all) signalGroup(group, 'SIGKILL');
}

/**
 * Stops whatever this outrider process's commands left running, for its exit: every process
 * carrying its OWNER_MARKER (a background `server > log &`, a child that ignores SIGTERM, one
 * that left its group) and their process groups. Linux only (/proc); elsewhere nothing is found.
 */
export function terminateOwned(graceMs = 1_000, timers: Timers = realTimers, procDir = '/proc'): Termination {
  return terminateMarked(OWNER_MARKER, ownerMark(), graceMs, timers, procDir);
}

/** terminateOwned without the grace: SIGKILL now, for an exit that cannot wait (a second signal). */
export function killOwned(procDir = '/proc'): void {
  killMarked(OWNER_MARKER, ownerMark(), procDir);
}

/**
 * Waits until `left()` says nothing is left, looking every STOP_POLL_MS, or until `graceMs`
 * passed, and then calls `kill()`. The timers are the caller's and stay ref'd.
 */
function escalate(options: { left: () => boolean; kill: () => void; graceMs: number; timers: Timers }): Promise<void> {
  const { left, kill, graceMs, timers } = options;
  return new Promise((resolve) => {
    let waited = 0;
    const wait = (): void => {
      const step = Math.min(STOP_POLL_MS, graceMs - waited);
      waited += step;
      timers.setTimeout(look, step);
    };
    const look = (): void => {
      if (waited >= graceMs) {
        kill();
        resolve();
      } else if (left()) {
        wait();
      } else {
        resolve();
      }
    };
    wait();
  });
}

/** The process group of `pid` (Linux: read from /proc), or undefined when it cannot be read. */
function groupOf(pid: number, procDir: string): number | undefined {
  const fields = statFields(pid, procDir);
  const group = fields ? Number(fields[2]) : NaN;
  return Number.isInteger(group) ? group : undefined;
}

/** Whether `pid` still runs: it exists and is not a zombie waiting for its parent to reap it. */
function running(pid: number, procDir: string): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return statFields(pid, procDir)?.[0] !== 'Z';
}

/** The fields of /proc/<pid>/stat after the command name (state first), or undefined. */
function statFields(pid: number, procDir: string): string[] | undefined {
  try {
    const text = readFileSync(`${procDir}/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}
