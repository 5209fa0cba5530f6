// npm run bench: builds the CLI if stale, bundles bench/run.ts (it uses the test suite's
// TypeScript mock provider) and runs it.
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
execFileSync(process.execPath, [out], { cwd: root, stdio: 'inherit' });
