/**
 * The JavaScript grep's worker, built from the current source for tests that run src/ (the
 * built binary finds dist/grep-worker.js by itself; the end-to-end tests check that).
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { JsGrepOptions } from '../../src/core/tools/grep-js.js';

const root = path.resolve(import.meta.dirname, '../..');

async function buildWorker(): Promise<URL> {
  const outfile = path.join(mkdtempSync(path.join(os.tmpdir(), 'outrider-grep-worker-')), 'grep-worker.mjs');
  await build({
    absWorkingDir: root,
    entryPoints: ['src/core/tools/grep-worker.ts'],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    banner: {
      js: "import { createRequire as __outriderRequire } from 'node:module'; const require = __outriderRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return pathToFileURL(outfile);
}

/** The worker script, built once per test file. */
export const grepWorker: URL = await buildWorker();

/** Options for grepTool / builtinTools that run the JavaScript search from source. */
export const jsGrep: JsGrepOptions = { worker: grepWorker };
