import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { findExecutable } from '../../../src/core/platform/find-executable.js';
import { globTool } from '../../../src/core/tools/glob.js';
import { grepTool } from '../../../src/core/tools/grep.js';
import { listDirTool } from '../../../src/core/tools/list-dir.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { jsGrep } from '../../support/grep-worker.js';
import { type TempDir, run, tempDir } from './harness.js';

// glob, list_dir and both greps must agree on which files exist (the rules are written down in
// src/core/tools/ignore-rules.ts). One tree holds every kind of rule; each query runs through the
// JavaScript search and through ripgrep, and both must give the expected set.

let outside: TempDir; // the user's home and a worktree's git directory, outside the workspace
let dir: TempDir;
let workspace: Workspace;

/** Every file holds "needle"; the comment says whether the search tools should see it. */
const TREE: Record<string, string> = {
  '.ignore': 'dot-ignored.txt\n', // ripgrep's own file: applies below, in and out of repositories
  'loose/.gitignore': 'loose-ignored.txt\n', // outside any repository: no effect
  'loose/loose-ignored.txt': 'seen',
  'loose/plain.txt': 'seen',
  'loose/editor.swp': 'user excludes file',
  'loose/dot-ignored.txt': '.ignore above',
  'repo/.git/HEAD': 'the .git folder itself is never searched',
  'repo/.git/info/exclude': 'excluded-locally.txt\n',
  'repo/.gitignore': '*.log\n!keep.log\nbuild/\n/root-only.txt\na/b/\n',
  'repo/keep.log': 'seen: taken back by !keep.log',
  'repo/debug.log': '*.log',
  'repo/root-only.txt': '/root-only.txt',
  'repo/src/root-only.txt': 'seen: the pattern is anchored to the root',
  'repo/build/out.txt': 'build/',
  'repo/src/build': 'seen: build/ names directories only',
  'repo/src/app.ts': 'seen',
  'repo/src/.gitignore': 'generated/\n!important.log\n',
  'repo/src/important.log': 'seen: the deeper .gitignore takes it back',
  'repo/src/generated/x.ts': 'generated/ in src/.gitignore',
  'repo/excluded-locally.txt': '.git/info/exclude',
  'repo/src/excluded-locally.txt': '.git/info/exclude, unanchored',
  'repo/.env': 'seen: hidden files are searched',
  'repo/.config/settings.json': 'seen: so are hidden folders',
  'repo/editor.swp': 'user excludes file',
  'repo/a/.gitignore': '!b/\n',
  'repo/a/b/x.txt': 'seen: a/.gitignore takes a/b back from the root .gitignore',
  'repo/dot-ignored.txt': '.ignore above the repository',
  'repo/inner/.git/HEAD': 'a nested repository',
  'repo/inner/trace.log': "seen: the outer *.log stops at the inner repository's root",
  'wt/.gitignore': '*.tmp\n',
  'wt/a.tmp': '*.tmp',
  'wt/b.txt': 'seen',
  'wt/wt-excluded.txt': "the worktree's info/exclude, in the common git directory",
};

const isRuleFile = (file: string) => /(^|\/)(\.gitignore|\.ignore|exclude)$/.test(file);

/** The files grep should find from the workspace root (the rule files hold no "needle"). */
const SEEN = Object.keys(TREE)
  .filter((file) => TREE[file].startsWith('seen'))
  .sort();

beforeAll(() => {
  outside = tempDir('outrider-ignore-home-');
  dir = tempDir('outrider-ignore-');
  workspace = makeWorkspace(dir.root);
  for (const [file, note] of Object.entries(TREE)) {
    dir.write(file, isRuleFile(file) ? note : `needle: ${note}\n`);
  }
  // A worktree: `.git` is a file naming a git directory whose commondir holds info/exclude.
  outside.write('git/worktrees/wt/commondir', '../..\n');
  outside.write('git/info/exclude', 'wt-excluded.txt\n');
  dir.write('wt/.git', `gitdir: ${path.join(outside.root, 'git/worktrees/wt')}\n`);
  // Symbolic links are not followed: neither the linked file nor the linked folder is seen.
  symlinkSync(path.join(dir.root, 'repo/src/app.ts'), path.join(dir.root, 'repo/link.ts'));
  symlinkSync(path.join(dir.root, 'repo/src'), path.join(dir.root, 'repo/linked-src'));
  mkdirSync(path.join(dir.root, 'repo/empty'));
});
afterAll(() => {
  dir.cleanup();
  outside.cleanup();
});

const rgPath = await findExecutable('rg');
const backends = [
  { name: 'the JavaScript search', findRg: () => undefined },
  ...(rgPath ? [{ name: 'ripgrep', findRg: () => rgPath }] : []),
];

async function grepFiles(findRg: () => string | undefined, input: { path?: string; glob?: string }): Promise<string[]> {
  const out = await run(
    grepTool({ findRg, js: jsGrep }),
    { pattern: 'needle', output_mode: 'files_with_matches', ...input },
    { workspace },
  );
  expect(out.isError).toBeUndefined();
  return out.content.startsWith('No matches') ? [] : out.content.split('\n').sort();
}

const below = (prefix: string) => SEEN.filter((file) => file.startsWith(prefix));

/** The queries, with what each should find. */
const QUERIES: Array<{ label: string; input: { path?: string; glob?: string }; expected: () => string[] }> = [
  { label: 'the whole workspace', input: {}, expected: () => SEEN },
  {
    label: 'a folder inside a repository (the root .gitignore still applies)',
    input: { path: 'repo/src' },
    expected: () => below('repo/src/'),
  },
  { label: 'an ignored folder named explicitly', input: { path: 'repo/build' }, expected: () => ['repo/build/out.txt'] },
  { label: 'a folder taken back by a deeper .gitignore', input: { path: 'repo/a' }, expected: () => ['repo/a/b/x.txt'] },
  { label: 'a folder outside any repository', input: { path: 'loose' }, expected: () => below('loose/') },
  { label: 'a worktree', input: { path: 'wt' }, expected: () => below('wt/') },
  { label: 'a file filter', input: { glob: '*.log' }, expected: () => SEEN.filter((file) => file.endsWith('.log')) },
];

/** Runs the checks under one way of giving the user's git excludes file. */
function agreementSuite(setUp: () => void) {
  beforeAll(setUp);
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  it('has ripgrep on this machine, so both back ends are compared', () => {
    expect(rgPath, 'rg must be on PATH for this test to compare the two greps').toBeDefined();
  });

  describe.each(backends)('grep via $name', ({ findRg }) => {
    it.each(QUERIES)('$label', async ({ input, expected }) => {
      expect(await grepFiles(findRg, input)).toEqual(expected());
    });
  });

  it('the two greps give the same file sets for every query', async () => {
    for (const { input } of QUERIES) {
      const sets = await Promise.all(backends.map(({ findRg }) => grepFiles(findRg, input)));
      for (const set of sets.slice(1)) expect(set).toEqual(sets[0]);
    }
  });

  it('glob lists the same files, and the rule files beside them', async () => {
    const ruleFiles = Object.keys(TREE).filter((file) => isRuleFile(file) && !file.includes('.git/'));
    const out = await run(globTool, { pattern: '**/*' }, { workspace });
    expect(out.content.split('\n').sort()).toEqual([...SEEN, ...ruleFiles].sort());
    const explicit = await run(globTool, { pattern: '**/*', path: 'repo/build' }, { workspace });
    expect(explicit.content).toBe('repo/build/out.txt');
  });

  it('list_dir lists what the others see and names the rest in its header', async () => {
    const out = await run(listDirTool, { path: 'repo' }, { workspace });
    const [header, ...names] = out.content.split('\n');
    expect(header).toBe(
      'repo: 10 entries (6 directories, 4 files); 7 ignored, not listed: .git/, build/, debug.log, dot-ignored.txt, editor.swp, excluded-locally.txt, root-only.txt',
    );
    expect(names).toEqual([
      '.config/',
      '.env',
      '.gitignore',
      'a/',
      'empty/',
      'inner/',
      'keep.log',
      'link.ts',
      'linked-src/',
      'src/',
    ]);
  });
}

describe('one rule set: the excludes file at its default place, $XDG_CONFIG_HOME/git/ignore', () => {
  agreementSuite(() => {
    outside.write('xdg/git/ignore', '*.swp\n');
    vi.stubEnv('GIT_CONFIG_GLOBAL', '');
    vi.stubEnv('HOME', path.join(outside.root, 'no-home'));
    vi.stubEnv('XDG_CONFIG_HOME', path.join(outside.root, 'xdg'));
  });
});

describe('one rule set: the excludes file named by core.excludesFile in ~/.gitconfig', () => {
  agreementSuite(() => {
    outside.write('home/.gitconfig', '[user]\n\tname = x\n[core]\n\texcludesFile = "~/my excludes" ; mine\n');
    outside.write('home/my excludes', '*.swp\n');
    vi.stubEnv('GIT_CONFIG_GLOBAL', '');
    vi.stubEnv('HOME', path.join(outside.root, 'home'));
    vi.stubEnv('XDG_CONFIG_HOME', '');
  });
});
