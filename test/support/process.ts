import { existsSync, readFileSync } from 'node:fs';
import { until } from './until.js';

/**
 * True once `pid` has exited. A zombie counts as exited: where PID 1 does not reap orphans
 * (as in some containers) an exited process keeps its pid until the machine's init reaps it.
 */
export function exited(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? false;
  } catch {
    return true;
  }
}

/** Polls until `pid` has exited: a killed process's exit is asynchronous to the signal. */
export async function expectExited(pid: number): Promise<void> {
  await until(() => exited(pid), { what: `process ${pid} to exit`, intervalMs: 25 });
}

/**
 * The pid a script wrote to `file` (`echo $! > file`), once it is there whole; `seen` is told
 * of it, so the test can kill it afterwards should it survive.
 */
export function pidWrittenTo(file: string, seen: (pid: number) => void): Promise<number> {
  return until(
    () => {
      if (!existsSync(file)) return undefined;
      const text = readFileSync(file, 'utf8');
      const pid = Number(text);
      if (!text.endsWith('\n') || !Number.isInteger(pid) || pid <= 0) return undefined;
      seen(pid);
      return pid;
    },
    { what: `a pid in ${file}` },
  );
}
