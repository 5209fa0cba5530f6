import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

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

/** Polls briefly: a killed process's exit is asynchronous to the signal. */
export async function expectExited(pid: number): Promise<void> {
  for (let i = 0; i < 40 && !exited(pid); i++) await new Promise((r) => setTimeout(r, 50));
  expect(exited(pid), `process ${pid} is still running`).toBe(true);
}
