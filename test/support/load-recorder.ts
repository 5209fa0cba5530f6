import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO } from './run-cli.js';

/** Which modules a run of the binary loads: a Node loader hook logs every URL (the bundle's lazy chunks among them). */

/** A loader hook that writes every module URL Node loads to a file. */
export function loadRecorder(): { nodeOptions: string; log: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-loads-'));
  const log = path.join(dir, 'loaded.txt');
  writeFileSync(log, '');
  writeFileSync(
    path.join(dir, 'hooks.mjs'),
    [
      "import { appendFileSync } from 'node:fs';",
      'let log;',
      'export function initialize(data) { log = data.log; }',
      'export async function load(url, context, nextLoad) {',
      '  appendFileSync(log, `${url}\\n`);',
      '  return nextLoad(url, context);',
      '}',
    ].join('\n'),
  );
  writeFileSync(
    path.join(dir, 'register.mjs'),
    [
      "import { register } from 'node:module';",
      `register('./hooks.mjs', import.meta.url, { data: { log: ${JSON.stringify(log)} } });`,
    ].join('\n'),
  );
  return { nodeOptions: `--import ${path.join(dir, 'register.mjs')}`, log };
}

/** The contents of the dist files a run loaded (chunk names are hashed, so chunks are told apart by content). */
export function loadedDistChunks(log: string): Array<{ file: string; text: string }> {
  const dist = path.join(REPO, 'dist') + path.sep;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file://'))
    .map((url) => fileURLToPath(url))
    .filter((file) => file.startsWith(dist))
    .map((file) => ({ file: path.basename(file), text: readFileSync(file, 'utf8') }));
}
