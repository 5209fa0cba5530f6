import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { listDirTool } from '../../../src/core/tools/list-dir.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { type TempDir, run, tempDir } from './harness.js';

let dir: TempDir;
let workspace: Workspace;
beforeEach(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
});
afterEach(() => dir.cleanup());

const list = (input: unknown) => run(listDirTool, input, { workspace });

describe('list_dir', () => {
  it('lists the root by default, sorted, directories marked, with a count', async () => {
    dir.write('b.txt', '');
    dir.write('src/index.ts', '');
    dir.write('.env', '');
    dir.write('a/deep/x.ts', '');
    expect(await list({})).toEqual({ content: '.: 4 entries (2 directories, 2 files)\n.env\na/\nb.txt\nsrc/' });
  });

  it('lists a subdirectory, marking a symlink to a directory as one', async () => {
    dir.write('src/z.ts', '');
    mkdirSync(path.join(dir.root, 'target'));
    symlinkSync(path.join(dir.root, 'target'), path.join(dir.root, 'src', 'linked'));
    expect((await list({ path: 'src' })).content).toBe('src: 2 entries (1 directory, 1 file)\nlinked/\nz.ts');
  });

  it('names what glob and grep skip in the header only: .git and ignored entries', async () => {
    dir.write('.git/HEAD', '');
    dir.write('.gitignore', 'dist/\n*.log\n');
    dir.write('dist/out.js', '');
    dir.write('debug.log', '');
    dir.write('src/a.ts', '');
    expect((await list({})).content).toBe(
      '.: 2 entries (1 directory, 1 file); 3 ignored, not listed: .git/, debug.log, dist/\n.gitignore\nsrc/',
    );
    // Named explicitly, an ignored directory is listed; the rules still apply inside it.
    dir.write('dist/map.log', '');
    expect((await list({ path: 'dist' })).content).toBe(
      'dist: 1 entry (0 directories, 1 file); 1 ignored, not listed: map.log\nout.js',
    );
  });

  it('names at most ten ignored entries, and says when every entry is ignored', async () => {
    dir.write('.git/HEAD', '');
    dir.write('logs/.gitignore', '*\n');
    for (let i = 0; i < 12; i++) dir.write(`logs/${String(i).padStart(2, '0')}.log`, '');
    expect((await list({ path: 'logs' })).content).toBe(
      'logs: 0 entries (0 directories, 0 files); 13 ignored, not listed: .gitignore, 00.log, 01.log, 02.log, 03.log, 04.log, 05.log, 06.log, 07.log, 08.log, … (3 more)',
    );
  });

  it('says when a directory is empty', async () => {
    mkdirSync(path.join(dir.root, 'empty'));
    expect(await list({ path: 'empty' })).toEqual({ content: 'empty is empty' });
  });

  it('caps long listings', async () => {
    mkdirSync(path.join(dir.root, 'many'));
    for (let i = 0; i < 510; i++) writeFileSync(path.join(dir.root, 'many', `f${String(i).padStart(3, '0')}`), '');
    const lines = (await list({ path: 'many' })).content.split('\n');
    expect(lines[0]).toBe('many: 510 entries (0 directories, 510 files)');
    expect(lines).toHaveLength(502);
    expect(lines.at(-1)).toBe('[10 more entries not shown; use glob to narrow down.]');
  });

  it('names a missing directory and points a file to read_file', async () => {
    expect(await list({ path: 'nope' })).toEqual({ content: 'Directory not found: nope. Use glob to find it.', isError: true });
    dir.write('file.txt', 'x');
    expect(await list({ path: 'file.txt' })).toEqual({ content: 'file.txt is a file; use read_file to read it.', isError: true });
  });

  it('is read-only and declares its path', () => {
    expect(listDirTool.kind).toBe('read-only');
    expect(listDirTool.paths?.({})).toEqual(['.']);
  });
});
