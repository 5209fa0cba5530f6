/** `worker-process.ts` bundled from the current source, for a test to run with node. */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '../../..');

export async function buildWorkerProcess(): Promise<string> {
  const outfile = path.join(mkdtempSync(path.join(os.tmpdir(), 'outrider-worker-process-')), 'worker.mjs');
  await build({
    absWorkingDir: root,
    entryPoints: ['test/core/remote/worker-process.ts'],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'warning',
  });
  return outfile;
}
