import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { excludesFileSetting, repositoryExcludeFile, userExcludesFile } from '../../../src/core/tools/git-excludes.js';
import { type TempDir, tempDir } from './harness.js';

let dir: TempDir;
beforeEach(() => {
  dir = tempDir('outrider-git-excludes-');
});
afterEach(() => dir.cleanup());

describe('excludesFileSetting', () => {
  const cases: Array<[label: string, config: string, expected: string | undefined]> = [
    ['a plain value', '[core]\n\texcludesFile = ~/.gitignore_global\n', '~/.gitignore_global'],
    ['names in any case', '[Core]\n  EXCLUDESFILE=/x/ignore', '/x/ignore'],
    [
      'a quoted value with spaces and a comment after it',
      '[core]\nexcludesfile = "/my files/ignore" # mine\n',
      '/my files/ignore',
    ],
    ['a ; comment and escapes', '[core]\nexcludesfile = /a\\\\b ; note\n', '/a\\b'],
    ['the last one given', '[core]\nexcludesfile = /one\n[core]\nexcludesfile = /two\n', '/two'],
    ['another section', '[user]\nexcludesfile = /not-core\n', undefined],
    ['a subsection of core', '[core "x"]\nexcludesfile = /not-core\n', undefined],
    ['a commented-out line', '[core]\n# excludesfile = /off\n', undefined],
    ['an empty value', '[core]\nexcludesfile =\n', undefined],
    ['a key on the header line', '[core] excludesfile = /same-line\n', '/same-line'],
  ];
  it.each(cases)('%s', (_label, config, expected) => {
    expect(excludesFileSetting(config)).toBe(expected);
  });
});

describe('userExcludesFile', () => {
  const env = (values: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ GIT_CONFIG_GLOBAL: '', XDG_CONFIG_HOME: '', ...values });

  it('defaults to $XDG_CONFIG_HOME/git/ignore, else ~/.config/git/ignore, when it exists', async () => {
    const xdg = dir.write('xdg/git/ignore', '*.swp\n');
    expect(await userExcludesFile(env({ HOME: dir.root, XDG_CONFIG_HOME: path.join(dir.root, 'xdg') }), '/')).toEqual({
      path: xdg,
      text: '*.swp\n',
    });
    expect(await userExcludesFile(env({ HOME: dir.root }), '/')).toBeUndefined();
    const home = dir.write('.config/git/ignore', '*.bak\n');
    expect(await userExcludesFile(env({ HOME: dir.root }), '/')).toEqual({ path: home, text: '*.bak\n' });
  });

  it('follows core.excludesFile, ~/.gitconfig winning over the XDG config as in git', async () => {
    dir.write('xdg/git/config', '[core]\nexcludesFile = ~/from-xdg\n');
    dir.write('from-xdg', 'xdg\n');
    const both = env({ HOME: dir.root, XDG_CONFIG_HOME: path.join(dir.root, 'xdg') });
    expect((await userExcludesFile(both, '/'))?.text).toBe('xdg\n');
    dir.write('.gitconfig', '[core]\nexcludesFile = ~/from-home\n');
    dir.write('from-home', 'home\n');
    expect((await userExcludesFile(both, '/'))?.text).toBe('home\n');
  });

  it('reads only $GIT_CONFIG_GLOBAL when it is set, and takes a relative path from the base directory', async () => {
    dir.write('.gitconfig', '[core]\nexcludesFile = ~/from-home\n');
    dir.write('from-home', 'home\n');
    const global = dir.write('global.ini', '[core]\nexcludesFile = rules/ignore\n');
    const rules = dir.write('project/rules/ignore', 'relative\n');
    expect(await userExcludesFile(env({ HOME: dir.root, GIT_CONFIG_GLOBAL: global }), path.join(dir.root, 'project'))).toEqual({
      path: rules,
      text: 'relative\n',
    });
  });

  it('gives nothing when the configured file is missing, without falling back to the default', async () => {
    dir.write('.config/git/ignore', '*.bak\n');
    dir.write('.gitconfig', '[core]\nexcludesFile = ~/missing\n');
    expect(await userExcludesFile(env({ HOME: dir.root }), '/')).toBeUndefined();
  });
});

describe('repositoryExcludeFile', () => {
  it('is .git/info/exclude in a plain repository, and nothing outside one', async () => {
    dir.write('repo/.git/HEAD', '');
    expect(await repositoryExcludeFile(path.join(dir.root, 'repo'))).toBe(path.join(dir.root, 'repo/.git/info/exclude'));
    expect(await repositoryExcludeFile(dir.root)).toBeUndefined();
  });

  it("follows a worktree's .git file to the common git directory", async () => {
    dir.write('main/.git/worktrees/wt/commondir', '../..\n');
    dir.write('wt/.git', `gitdir: ${path.join(dir.root, 'main/.git/worktrees/wt')}\n`);
    expect(await repositoryExcludeFile(path.join(dir.root, 'wt'))).toBe(path.join(dir.root, 'main/.git/info/exclude'));
  });

  it('reads nothing for a .git file without a commondir (a submodule), as ripgrep does', async () => {
    dir.write('main/.git/modules/sub/HEAD', '');
    dir.write('main/sub/.git', 'gitdir: ../.git/modules/sub\n');
    expect(await repositoryExcludeFile(path.join(dir.root, 'main/sub'))).toBeUndefined();
    dir.write('odd/.git', 'not a gitdir line\n');
    expect(await repositoryExcludeFile(path.join(dir.root, 'odd'))).toBeUndefined();
  });
});
