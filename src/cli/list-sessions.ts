import { listSessions, outriderPaths } from '../core/index.js';

/** `outrider --resume` with no id: the sessions of this directory, newest first. */
export function printSessions(io: { stdout: NodeJS.WritableStream; env: NodeJS.ProcessEnv; cwd: string }): number {
  const sessions = listSessions(outriderPaths(io.env).sessionsDir, { cwd: io.cwd });
  if (sessions.length === 0) {
    io.stdout.write(`No sessions in ${io.cwd} yet.\n`);
    return 0;
  }
  io.stdout.write(`Sessions in ${io.cwd}, newest first (resume one with outrider --resume <id>):\n`);
  for (const s of sessions.slice(0, 20)) {
    io.stdout.write(`  ${s.id}  ${s.updatedAt.slice(0, 16).replace('T', ' ')}  ${s.firstPrompt || '(no prompt)'}\n`);
  }
  return 0;
}
