import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Builds dist/ when it is missing or older than src/, so end-to-end tests run the real binary. */
export default function setup(): void {
  const root = path.resolve(import.meta.dirname, '../..');
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
}
