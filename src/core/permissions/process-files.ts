import path from 'node:path';
import type { ResolvedPath } from '../tools/paths.js';

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
 * A shell command that, once quotes are taken out, names a path in /proc, or names a process
 * file (`environ`, `cmdline`, `mem`) beside a glob or an expansion that could make the rest of
 * its path: never judged read-only, so it is asked about. Outrider's own environment block
 * holds no key (start/hide-keys.ts), but another process of the user's may. `grep environ src`
 * still runs: without /proc, a glob or a variable, it reads the workspace.
 *
 * Not a parser: a word the shell builds at run time slips past it, which is why the real
 * protection is that no process outrider runs has a key in its environment, and the sandbox
 * (its own process namespace) for what runs unasked.
 */
export function namesProcessFiles(command: string): boolean {
  const plain = command.replace(/["'\\]/g, '');
  if (/\/proc(\/|\b)|(^|[\s=:;&|(<>`])proc\//.test(plain)) return true;
  return /[*?[$`]/.test(plain) && /environ|cmdline|\bmem\b/.test(plain);
}
