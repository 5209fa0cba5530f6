// Fetches Node 24 LTS for `npm run bench` into bench/.node/ (ignored by git): the registry's
// `node` package, whose install step brings the binary for this platform as another registry
// package. Nothing is installed into the project's own node_modules.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const prefix = path.join(root, 'bench/.node');
const binary = path.join(prefix, 'node_modules/node/bin/node');
execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', 'node@24'], { stdio: 'inherit' });
if (!existsSync(binary)) {
  console.error(`bench/fetch-node.mjs: npm installed the node package, but ${binary} is missing (did its install step run?)`);
  process.exit(1);
}
console.log(execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim(), 'is in', path.relative(root, binary));
