// Builds outrider as it was at a git ref into a folder of the temp dir, so `npm run bench --
// --against <that folder>/bin/outrider.js` measures a change side by side with what it
// changed:  node bench/baseline.mjs [ref]   (default HEAD; prints the bin path)
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const ref = process.argv[2] ?? 'HEAD';
const sha = execFileSync('git', ['rev-parse', '--short', ref], { cwd: root, encoding: 'utf8' }).trim();
const dir = path.join(os.tmpdir(), `outrider-baseline-${sha}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
execSync(`git archive ${sha} src bin scripts package.json | tar -x -C ${JSON.stringify(dir)}`, { cwd: root, stdio: 'inherit' });
symlinkSync(realpathSync(path.join(root, 'node_modules')), path.join(dir, 'node_modules'));
execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, stdio: 'inherit' });
const bin = path.join(dir, 'bin/outrider.js');
if (!existsSync(bin)) throw new Error(`no ${bin} at ${ref}`);
console.log(bin);
