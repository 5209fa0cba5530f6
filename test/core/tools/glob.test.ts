import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { globTool } from '../../../src/core/tools/glob.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { type TempDir, run, tempDir } from './harness.js';

let dir: TempDir;
let workspace: Workspace;
/** Files with their age in minutes, so "newest first" has one right answer. */
const files: [rel: string, ageMinutes: number][] = [
  ['src/a.ts', 5],
  ['src/b.tsx', 4],
  ['src/deep/x/c.ts', 1],
  ['src/deep/x/c.js', 2],
  ['test/a.test.ts', 3],
  ['README.md', 10],
  ['node_modules/pkg/index.ts', 0],
  ['.git/HEAD', 0],
  ['dist/out.js', 0],
  ['src/gen.ts', 0],
  ['.github/ci.yml', 6],
];
beforeAll(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
  dir.write('.gitignore', 'dist/\n/src/gen.ts\n');
  const now = Date.now() / 1000;
  for (const [rel, age] of files) {
    const file = dir.write(rel, `${rel}\n`);
    utimesSync(file, now - age * 60, now - age * 60);
  }
  mkdirSync(path.join(dir.root, 'many'));
  for (let i = 0; i < 250; i++) writeFileSync(path.join(dir.root, 'many', `f${String(i).padStart(3, '0')}.txt`), '');
});
afterAll(() => dir.cleanup());

const glob = (input: unknown) => run(globTool, input, { workspace });
const listed = async (input: unknown) => (await glob(input)).content.split('\n');

describe('glob', () => {
  it('matches ** at any depth, newest first, skipping node_modules, .git and ignored files', async () => {
    expect(await listed({ pattern: '**/*.ts' })).toEqual(['src/deep/x/c.ts', 'test/a.test.ts', 'src/a.ts']);
  });

  it('expands braces', async () => {
    expect(await listed({ pattern: 'src/**/*.{ts,tsx}' })).toEqual(['src/deep/x/c.ts', 'src/b.tsx', 'src/a.ts']);
    expect(await listed({ pattern: '{README.md,test/*}' })).toEqual(['test/a.test.ts', 'README.md']);
  });

  it('matches * within one directory and says how to reach deeper', async () => {
    expect(await listed({ pattern: '*.md' })).toEqual(['README.md']);
    expect((await glob({ pattern: '*.ts' })).content).toBe('No files match *.ts in .; use **/*.ts to search subdirectories too');
  });

  it('matches ? and character classes', async () => {
    expect(await listed({ pattern: 'src/deep/?/c.[jt]s' })).toEqual(['src/deep/x/c.ts', 'src/deep/x/c.js']);
  });

  it('searches below path, showing paths from the workspace root', async () => {
    expect(await listed({ pattern: '*.ts', path: 'src' })).toEqual(['src/a.ts']);
    expect(await listed({ pattern: '**/c.*', path: 'src/deep' })).toEqual(['src/deep/x/c.ts', 'src/deep/x/c.js']);
  });

  it('includes hidden directories other than .git', async () => {
    expect(await listed({ pattern: '**/*.yml' })).toEqual(['.github/ci.yml']);
  });

  it('enters node_modules and .git only when the pattern names them', async () => {
    expect(await listed({ pattern: 'node_modules/**/*.ts' })).toEqual(['node_modules/pkg/index.ts']);
    expect(await listed({ pattern: '.git/*' })).toEqual(['.git/HEAD']);
  });

  it('leaves ignored files out, unless the search starts inside an ignored directory', async () => {
    expect((await glob({ pattern: '**/*.js' })).content).toBe('src/deep/x/c.js');
    expect(await listed({ pattern: '*.js', path: 'dist' })).toEqual(['dist/out.js']);
    expect(await listed({ pattern: 'dist/*.js' })).toEqual(['dist/out.js']);
  });

  it('takes an absolute pattern', async () => {
    expect(await listed({ pattern: path.join(dir.root, 'src', '*.tsx') })).toEqual(['src/b.tsx']);
  });

  it('caps results and says how many more there are', async () => {
    const lines = await listed({ pattern: 'many/*.txt' });
    expect(lines).toHaveLength(202);
    expect(lines.at(-1)).toBe('[50 more files not shown (250 in all); narrow the pattern.]');
  });

  it('says when nothing matches and names a bad path', async () => {
    expect((await glob({ pattern: 'nothing/**' })).content).toBe('No files match nothing/** in .');
    expect(await glob({ pattern: '*', path: 'missing' })).toEqual({
      content: 'Path not found: missing. Use list_dir to see what exists.',
      isError: true,
    });
    expect(await glob({ pattern: '*', path: 'README.md' })).toEqual({
      content: 'README.md is a file, not a directory; give its directory as path.',
      isError: true,
    });
  });

  it('is read-only and declares the directory it searches', () => {
    expect(globTool.kind).toBe('read-only');
    expect(globTool.paths?.({ pattern: '*' })).toEqual(['.']);
    expect(globTool.paths?.({ pattern: '*', path: 'src' })).toEqual(['src']);
  });
});
