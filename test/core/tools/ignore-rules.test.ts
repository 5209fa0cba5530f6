import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IgnoreScope } from '../../../src/core/tools/ignore-rules.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { walkFiles } from '../../../src/core/tools/walk-files.js';
import { type TempDir, tempDir } from './harness.js';

let dir: TempDir;
let home: TempDir;
beforeEach(() => {
  dir = tempDir();
  home = tempDir('outrider-ignore-home-');
});
afterEach(() => {
  dir.cleanup();
  home.cleanup();
});

/** An environment whose git excludes file does not exist, so only the tree's own files count. */
const noUserFile = (): NodeJS.ProcessEnv => ({ HOME: home.root, XDG_CONFIG_HOME: '', GIT_CONFIG_GLOBAL: '' });

async function walked(start = dir.root): Promise<string[]> {
  const files: string[] = [];
  const signal = new AbortController().signal;
  for await (const entry of walkFiles({ root: dir.root, start, signal, env: noUserFile() })) {
    files.push(entry.absolute.slice(dir.root.length + 1));
  }
  return files;
}

describe('the walk honours .gitignore lines as git reads them', () => {
  it('comments, negation, directory-only, anchored and ** patterns, escapes, trailing spaces', async () => {
    dir.write('.git/HEAD', '');
    dir.write(
      '.gitignore',
      [
        '# a comment',
        '',
        '*.log',
        '!keep.log',
        'build/',
        '/top-only.txt',
        'docs/generated',
        '**/tmp',
        'cache/**',
        '\\#literal',
        'trailing   ',
      ].join('\n'),
    );
    const files: Array<[path: string, seen: boolean]> = [
      ['debug.log', false],
      ['deep/in/debug.log', false],
      ['keep.log', true],
      ['deep/keep.log', true],
      ['build/out.js', false],
      ['src/build/out.js', false],
      ['src/build.txt', true],
      ['top-only.txt', false],
      ['sub/top-only.txt', true],
      ['docs/generated/a.md', false],
      ['x/docs/generated/a.md', true],
      ['tmp/a', false],
      ['a/b/tmp/c', false],
      ['cache/a', false],
      ['cache/x/y', false],
      ['#literal', false],
      ['trailing', false],
      ['# a comment', true],
      ['src/index.ts', true],
    ];
    for (const [file] of files) dir.write(file, '');
    const expected = files.filter(([, seen]) => seen).map(([file]) => file);
    expect(await walked()).toEqual(expected.concat('.gitignore').sort());
  });

  it('applies a nested file only below its own directory, over the ones above it', async () => {
    dir.write('.git/HEAD', '');
    dir.write('.gitignore', '*.gen.ts\n');
    dir.write('pkg/.gitignore', '/local.txt\n!keep.gen.ts\n');
    for (const file of ['local.txt', 'keep.gen.ts', 'pkg/local.txt', 'pkg/sub/local.txt', 'pkg/a.gen.ts', 'pkg/keep.gen.ts'])
      dir.write(file, '');
    expect(await walked()).toEqual(['.gitignore', 'local.txt', 'pkg/.gitignore', 'pkg/keep.gen.ts', 'pkg/sub/local.txt']);
  });

  it('reads CRLF files, and matches case-sensitively as git on Linux and ripgrep do', async () => {
    dir.write('.git/HEAD', '');
    dir.write('.gitignore', 'a.txt\r\nB.txt\r\n');
    for (const file of ['a.txt', 'A.txt', 'B.txt', 'b.txt']) dir.write(file, '');
    expect(await walked()).toEqual(['.gitignore', 'A.txt', 'b.txt']);
  });

  it('ignores .gitignore files outside a git repository, but not .ignore files', async () => {
    dir.write('.gitignore', 'a.txt\n');
    dir.write('.ignore', 'b.txt\n');
    for (const file of ['a.txt', 'b.txt', 'c.txt']) dir.write(file, '');
    expect(await walked()).toEqual(['.gitignore', '.ignore', 'a.txt', 'c.txt']);
  });

  it('reads .gitignore files up to the repository root when the walk starts below it', async () => {
    dir.write('.git/HEAD', '');
    dir.write('.gitignore', 'secret.txt\nout/\n');
    dir.write('deep/down/secret.txt', '');
    dir.write('deep/down/open.txt', '');
    dir.write('deep/out/x.txt', '');
    expect(await walked(`${dir.root}/deep`)).toEqual(['deep/down/open.txt']);
    // Named explicitly, an ignored folder is searched; the rules still apply inside it.
    expect(await walked(`${dir.root}/deep/out`)).toEqual(['deep/out/x.txt']);
  });

  it('lets .rgignore outrank .ignore, and .ignore outrank .gitignore', async () => {
    dir.write('.git/HEAD', '');
    dir.write('.gitignore', '*.txt\n');
    dir.write('.ignore', '!*.txt\n*.md\n');
    dir.write('.rgignore', '!*.md\n*.csv\n');
    for (const file of ['a.txt', 'b.md', 'c.csv']) dir.write(file, '');
    expect(await walked()).toEqual(['.gitignore', '.ignore', '.rgignore', 'a.txt', 'b.md']);
  });
});

describe('IgnoreScope', () => {
  it('judges the entries of one directory, with the rules of the directories above', async () => {
    dir.write('.git/HEAD', '');
    dir.write('.gitignore', 'dist/\n*.map\n');
    dir.write('pkg/dist/a.js', '');
    const workspace = makeWorkspace(dir.root);
    const scope = await IgnoreScope.forDirectory(`${dir.root}/pkg`, { workspaceRoot: workspace.root, env: noUserFile() });
    expect(scope.ignores('dist', true)).toBe(true);
    expect(scope.ignores('dist', false)).toBe(false);
    expect(scope.ignores('x.js.map', false)).toBe(true);
    expect(scope.ignores('x.js', false)).toBe(false);
  });

  it('names with glob characters in them are taken literally when a walk enters them', async () => {
    dir.write('.git/HEAD', '');
    dir.write('.gitignore', 'we*ird*/\n');
    dir.write('we*ird [1]/inside.txt', '');
    dir.write('weXird 1/inside.txt', '');
    expect(await walked()).toEqual(['.gitignore']);
    // Entering it explicitly takes back exactly that folder (escaped, `[1]` is not a class).
    expect(await walked(`${dir.root}/we*ird [1]`)).toEqual(['we*ird [1]/inside.txt']);
  });
});
