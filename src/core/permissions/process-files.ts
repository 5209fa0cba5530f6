import path from 'node:path';
import type { ResolvedPath } from '../platform/paths.js';

/**
 * Processes' own files under /proc: `/proc/<pid>/environ` shows the environment a process
 * started with (a provider key, for any program the user started with one), `mem` its memory,
 * `cmdline` its arguments, `fd/*` its open files. No tool reads or writes them, in any mode:
 * a coding task has no need of them, and a key read there would go to the model. /proc itself
 * is refused too (a search from it walks into every process); system-wide files such as
 * /proc/cpuinfo are not process files and stay readable.
 */
export function processFileReason(p: ResolvedPath): string | undefined {
  for (const candidate of [p.absolute, p.real]) {
    if (isProcessFile(candidate)) {
      const shown = candidate === p.absolute ? candidate : `${p.requested} (really ${candidate})`;
      return `${shown} is under /proc, where processes' environments, memory and arguments are (a provider key among them): no tool opens it`;
    }
  }
  return undefined;
}

/** `/proc`, or anything in a process's directory there (`/proc/123`, `/proc/self`, `/proc/thread-self`). */
function isProcessFile(absolute: string): boolean {
  const parts = path.posix.normalize(absolute.split(path.sep).join('/')).split('/');
  if (parts[0] !== '' || parts[1] !== 'proc') return false;
  const entry = parts[2];
  return entry === undefined || entry === '' || /^\d+$/.test(entry) || entry === 'self' || entry === 'thread-self';
}

/**
 * A shell command that, once quotes are taken out, reaches into a process's directory under
 * /proc beyond the harmless files (`/proc/1/comm`, `/proc/self/status`), names /proc itself or
 * a process directory whole (a recursive search from it reads every environment), or names a
 * process file (`environ`, `cmdline`, `mem`) beside a glob or an expansion that could make the
 * rest of its path: never judged read-only, so it is asked about. System-wide files
 * (`/proc/cpuinfo`) and `grep environ src` still run. Outrider's own environment block holds no
 * key (start/hide-keys.ts), but another process of the user's may.
 *
 * Not a parser: a word the shell builds at run time slips past it, which is why the real
 * protection is that no process outrider runs has a key in its environment, and the sandbox
 * (its own process namespace, its own /proc) for what runs unasked.
 */
export function namesProcessFiles(command: string): boolean {
  const plain = command.replace(/["'\\]/g, '');
  for (const match of plain.matchAll(PROC_REFERENCE)) if (!harmlessProcPath(match[1] ?? '')) return true;
  return GLOB_OR_EXPANSION.test(plain) && PROCESS_FILE_NAME.test(plain);
}

/** `/proc` or a relative `proc` as a word of its own or the start of one, and the path after it. */
const PROC_REFERENCE = /(?:^|[\s=:;&|(<>`])\/?proc(?=$|[\s;&|)<>`/])(\/[^\s;&|()<>`]*)?/g;
const GLOB_OR_EXPANSION = /[*?[$`{]/;
const PROCESS_FILE_NAME = /environ|cmdline|\bmem\b/;
/** Files of a process directory that hold neither its environment, its memory nor its arguments. */
const HARMLESS_PROCESS_FILES = new Set(['comm', 'status', 'stat', 'statm', 'limits', 'cgroup', 'oom_score', 'wchan', 'sched']);

/** The path after `/proc` (`/cpuinfo`, `/1/comm`): a system-wide file, or one of a process's harmless files. */
function harmlessProcPath(rest: string): boolean {
  if (GLOB_OR_EXPANSION.test(rest)) return false;
  const parts = rest.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.length === 0 || parts.includes('..')) return false;
  if (!PROCESS_DIRECTORY.test(parts[0]!)) return true;
  return parts.length === 2 && HARMLESS_PROCESS_FILES.has(parts[1]!);
}

const PROCESS_DIRECTORY = /^(\d+|self|thread-self)$/;
