// npm run bench: builds the CLI if stale, bundles bench/run.ts (it uses the test suite's
// TypeScript mock provider and, for the in-process figures, outrider's own core) and runs it.
// Arguments pass through: `npm run bench -- --quick --only loop,start`.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
const out = path.join(root, 'bench/.run.mjs');
await build({
  absWorkingDir: root,
  entryPoints: ['bench/run.ts'],
  outfile: out,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
try {
  execFileSync(process.execPath, [out, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
} catch (error) {
  process.exitCode = error.status ?? 1;
}
