import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { findExecutable } from '../../../src/core/platform/find-executable.js';
import { type GrepToolOptions, grepTool } from '../../../src/core/tools/grep.js';
import { rgArgs } from '../../../src/core/tools/grep-rg.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { jsGrep } from '../../support/grep-worker.js';
import { type TempDir, run, tempDir } from './harness.js';

let dir: TempDir;
let workspace: Workspace;
beforeAll(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
  dir.write('.gitignore', 'ignored.txt\nbuild/\n*.log\n!keep.log\n');
  dir.write('src/a.ts', 'const needle = 1;\nother\nNeedle again\n');
  dir.write('src/b.tsx', 'needle in tsx\n');
  dir.write('src/sub/.gitignore', 'secret.ts\n');
  dir.write('src/sub/secret.ts', 'needle secret\n');
  dir.write('src/sub/c.ts', 'no match\nneedle c\n');
  dir.write('src/sub/trace.log', 'needle in a log below the root .gitignore\n');
  dir.write('ignored.txt', 'needle ignored\n');
  dir.write('build/out.js', 'needle build\n');
  dir.write('debug.log', 'needle log\n');
  dir.write('keep.log', 'needle keep\n');
  dir.write('.hidden/h.txt', 'needle hidden\n');
  dir.write('.git/config', 'needle git\n');
  dir.write('bin.dat', Buffer.from('needle\0binary'));
  dir.write('many/lines.txt', Array.from({ length: 300 }, (_, i) => `hit ${i + 1}`).join('\n'));
  dir.write('colon/a:b.txt', 'colonword: here\n');
  mkdirSync(path.join(dir.root, 'empty-dir'));
});
afterAll(() => dir.cleanup());

const rgPath = await findExecutable('rg');

/** The same expectations hold for both back ends: that is the point of the fallback. */
const backends: [name: string, findRg: GrepToolOptions['findRg'], available: boolean][] = [
  ['the JavaScript search', () => undefined, true],
  [`ripgrep (${rgPath ?? 'rg is not on PATH on this machine: these cases need it'})`, () => rgPath, rgPath !== undefined],
];

describe.each(backends)('grep via %s', (_name, findRg, available) => {
  const grep = (input: unknown) => run(grepTool({ findRg, js: jsGrep }), input, { workspace });

  it.runIf(available)('lists matching lines as path:line:text, honouring .gitignore files and skipping .git', async () => {
    const out = await grep({ pattern: 'needle' });
    expect(out.isError).toBeUndefined();
    expect(out.content.split('\n').sort()).toEqual([
      '.hidden/h.txt:1:needle hidden',
      'keep.log:1:needle keep',
      'src/a.ts:1:const needle = 1;',
      'src/b.tsx:1:needle in tsx',
      'src/sub/c.ts:2:needle c',
    ]);
  });

  it.runIf(available)('ignores case when asked', async () => {
    const out = await grep({ pattern: 'needle', path: 'src/a.ts', ignore_case: true });
    expect(out.content).toBe('src/a.ts:1:const needle = 1;\nsrc/a.ts:3:Needle again');
  });

  it.runIf(available)('lists files or counts per file', async () => {
    const files = await grep({ pattern: 'needle', path: 'src', output_mode: 'files_with_matches' });
    expect(files.content.split('\n').sort()).toEqual(['src/a.ts', 'src/b.tsx', 'src/sub/c.ts']);
    const counts = await grep({ pattern: 'needle', path: 'src', output_mode: 'count', ignore_case: true });
    expect(counts.content.split('\n').sort()).toEqual(['src/a.ts:2', 'src/b.tsx:1', 'src/sub/c.ts:1']);
  });

  it.runIf(available)('filters files by glob, by name or by path', async () => {
    const byName = await grep({ pattern: 'needle', glob: '*.ts', output_mode: 'files_with_matches' });
    expect(byName.content.split('\n').sort()).toEqual(['src/a.ts', 'src/sub/c.ts']);
    const excluded = await grep({ pattern: 'needle', path: 'src', glob: '!*.ts', output_mode: 'files_with_matches' });
    expect(excluded.content).toBe('src/b.tsx');
    const byPath = await grep({ pattern: 'needle', glob: 'src/*/*.ts', output_mode: 'files_with_matches' });
    expect(byPath.content).toBe('src/sub/c.ts');
    const braces = await grep({ pattern: 'needle', glob: '*.{tsx,log}', output_mode: 'files_with_matches' });
    expect(braces.content.split('\n').sort()).toEqual(['keep.log', 'src/b.tsx']);
  });

  it.runIf(available)('applies the root .gitignore when searching a subdirectory', async () => {
    const out = await grep({ pattern: 'needle', path: 'src/sub' });
    expect(out.content).toBe('src/sub/c.ts:2:needle c');
  });

  it.runIf(available)('caps results and says how many more there are', async () => {
    const out = await grep({ pattern: '^hit', path: 'many' });
    const lines = out.content.split('\n');
    expect(lines).toHaveLength(202);
    expect(lines[0]).toBe('many/lines.txt:1:hit 1');
    expect(lines[199]).toBe('many/lines.txt:200:hit 200');
    expect(lines[201]).toBe('[100 more matching lines not shown; narrow the pattern, path or glob.]');
  });

  it.runIf(available)('keeps a path holding a colon whole', async () => {
    expect((await grep({ pattern: 'colonword' })).content).toBe('colon/a:b.txt:1:colonword: here');
    expect((await grep({ pattern: 'colonword', glob: 'colon/*', output_mode: 'count' })).content).toBe('colon/a:b.txt:1');
  });

  it.runIf(available)('says when nothing matches', async () => {
    expect(await grep({ pattern: 'absent-term', path: 'src' })).toEqual({ content: 'No matches for absent-term in src' });
    expect((await grep({ pattern: 'x', path: 'empty-dir' })).content).toBe('No matches for x in empty-dir');
  });

  it.runIf(available)('names an invalid regex', async () => {
    const out = await grep({ pattern: 'needle(' });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/^Invalid regex needle\(: /);
  });

  it.runIf(available)('names a missing path', async () => {
    expect(await grep({ pattern: 'x', path: 'nowhere' })).toEqual({
      content: 'Path not found: nowhere. Use glob or list_dir to find it.',
      isError: true,
    });
  });

  it.runIf(available)('stops when the signal aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    const out = await run(grepTool({ findRg, js: jsGrep }), { pattern: 'needle' }, { workspace, signal: controller.signal });
    expect(out).toEqual({ content: 'grep was interrupted', isError: true });
  });
});

describe('grep', () => {
  it('looks rg up once per tool instance', async () => {
    let lookups = 0;
    const tool = grepTool({
      js: jsGrep,
      findRg: () => {
        lookups++;
        return undefined;
      },
    });
    await run(tool, { pattern: 'needle', path: 'src' }, { workspace });
    await run(tool, { pattern: 'needle', path: 'src' }, { workspace });
    expect(lookups).toBe(1);
  });

  it('finds rg on PATH by default, and searches either way', async () => {
    const out = await run(grepTool(), { pattern: 'needle c', path: 'src' }, { workspace });
    expect(out.content).toBe('src/sub/c.ts:2:needle c');
  });

  it('builds ripgrep arguments without a shell, relative to the workspace root', () => {
    const base = { ignoreCase: true, mode: 'count' as const, workspace, limit: 200, signal: new AbortController().signal };
    expect(rgArgs({ ...base, pattern: '-x', glob: '*.ts', target: path.join(dir.root, 'src') })).toEqual([
      '--no-heading',
      '--line-number',
      '--color',
      'never',
      '--with-filename',
      '--null',
      '--hidden',
      '--glob',
      '!.git',
      '--no-ignore-global',
      '--sort',
      'path',
      '--ignore-case',
      '--type-add',
      'outrider:*.ts',
      '--type',
      'outrider',
      '--count',
      '--regexp',
      '-x',
      '--',
      'src',
    ]);
    expect(rgArgs({ ...base, pattern: 'p', glob: '!*.md', target: dir.root })).toContain('--type-not');
    const pathGlob = rgArgs({ ...base, pattern: 'p', glob: 'src/**/*.ts', target: dir.root });
    expect(pathGlob).toContain('outrider:*.ts');
    expect(pathGlob).not.toContain('src/**/*.ts');
    expect(rgArgs({ ...base, pattern: 'p', target: dir.root }).slice(-3)).toEqual(['--regexp', 'p', '--']);
    // The user's git excludes file is found by us and handed over, whatever rg's version would look up.
    const withExcludes = rgArgs({ ...base, pattern: 'p', target: dir.root }, { userExcludes: '/home/u/.config/git/ignore' });
    expect(withExcludes.slice(withExcludes.indexOf('--no-ignore-global'), withExcludes.indexOf('--ignore-case'))).toEqual([
      '--no-ignore-global',
      '--sort',
      'path',
      '--ignore-file',
      '/home/u/.config/git/ignore',
    ]);
  });

  it('is read-only and declares the path it searches', () => {
    const tool = grepTool();
    expect(tool.kind).toBe('read-only');
    expect(tool.paths?.({ pattern: 'x' })).toEqual(['.']);
    expect(tool.paths?.({ pattern: 'x', path: 'src' })).toEqual(['src']);
  });
});

describe('the environment rg runs in', () => {
  // The grep tool is started with the session's environment less its secrets (open-session.ts):
  // rg reading its own /proc/self/environ would otherwise answer yes or no for a guessed key prefix.
  // (The policy refuses /proc to every tool; this is the layer under it.)
  const count = (env: NodeJS.ProcessEnv) =>
    run(
      grepTool({ findRg: () => rgPath, env }),
      { pattern: 'PROBE_KEY=sk-probe', path: '/proc/self/environ', output_mode: 'count' },
      { workspace },
    );

  it.runIf(rgPath !== undefined)('is the one the tool was given, not this process’s', async () => {
    const base = { PATH: process.env.PATH ?? '' };
    expect((await count({ ...base, PROBE_KEY: 'sk-probe-0123456789' })).content).toMatch(/:1$/m);
    expect((await count(base)).content).toMatch(/^No matches/);
  });
});
