import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * Builds dist/ when it is missing or older than src/, so end-to-end tests run the real
 * binary, and checks that tmux is there for the terminal tests (say so, rather than fail
 * obscurely later).
 */
export default function setup(): void {
  if (spawnSync('tmux', ['-V']).status !== 0) {
    throw new Error('the terminal tests need tmux: install it (apt-get install tmux, brew install tmux) and run npm test again');
  }
  const root = path.resolve(import.meta.dirname, '../..');
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
}
