// Bundles src/ into dist/ with esbuild. `--if-stale` skips the build when dist/ is newer than src/.
import { build } from 'esbuild';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bundle = path.join(root, 'dist/cli.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const fresh = existsSync(bundle) && statSync(bundle).mtimeMs >= newestMtime(path.join(root, 'src'));
if (process.argv.includes('--if-stale') && fresh) process.exit(0);

// Build beside dist/ and swap on success, so a failed build never leaves a half-empty dist/.
const staging = path.join(root, 'dist.partial');
rmSync(staging, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // The JavaScript grep's worker is an entry of its own: grep-js.ts starts it from beside the bundle.
  entryPoints: { cli: 'src/cli/main.ts', 'grep-worker': 'src/core/tools/grep-worker.ts' },
  outdir: staging,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies are bundled: one file loads far faster than hundreds of small modules
  // (the SDKs alone are ~300 ms of module resolution), and `npx outrider` installs nothing.
  // Ink loads react-devtools-core only when DEV=true; it is not a dependency.
  external: ['react-devtools-core'],
  // jsonc-parser's "main" is a UMD wrapper whose require() calls esbuild cannot follow (the
  // bundle would require ./impl/format at run time and crash); its ES module build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  banner: {
    js: "import { createRequire as __outriderRequire } from 'node:module'; const require = __outriderRequire(import.meta.url);",
  },
  jsx: 'automatic',
  // React, its reconciler and the JSX runtime pick their production builds by this name: left
  // to the environment, the bundle carried the development ones, whose checks and bookkeeping
  // made each TUI frame cost about twice its work.
  define: { 'process.env.NODE_ENV': '"production"' },
  sourcemap: 'linked',
  legalComments: 'none',
  minify: true,
  logLevel: 'warning',
});
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
renameSync(staging, path.join(root, 'dist'));
