import { type ChildProcess, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { CommandPlan } from './plan.js';

/**
 * Starts a planned command: detached, so it leads its own process group (bwrap and bash in
 * it) and a stop reaches every descendant; stdin closed unless `stdin: 'pipe'` asks for one;
 * stdout and stderr piped; the seccomp program, if any, written to bwrap on its own descriptor.
 */
export function spawnPlan(
  plan: Exclude<CommandPlan, { kind: 'refused' }>,
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: 'ignore' | 'pipe' },
): ChildProcess & { stdout: NonNullable<ChildProcess['stdout']>; stderr: NonNullable<ChildProcess['stderr']> } {
  const seccomp = plan.kind === 'bwrap' ? plan.seccomp : undefined;
  const env = plan.kind === 'bwrap' ? { ...options.env, ...plan.env } : options.env;
  const stdin = options.stdin ?? 'ignore';
  const child = spawn(plan.file, plan.args, {
    cwd: options.cwd,
    detached: true,
    stdio: seccomp ? [stdin, 'pipe', 'pipe', 'pipe'] : [stdin, 'pipe', 'pipe'],
    env,
  });
  if (seccomp) {
    const program = child.stdio[3] as Writable | null | undefined;
    // bwrap reads it to the end before it starts the command; if bwrap died first, its exit says why.
    program?.on('error', () => {});
    program?.end(seccomp);
  }
  return child as ReturnType<typeof spawnPlan>;
}
