import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { MergeCheck } from '../../../src/core/worktrees/merge-check.js';
import { WorktreeJobs } from '../../../src/core/worktrees/worktree-jobs.js';
import { worktreeCommand } from '../../../src/core/worktrees/worktree-tools.js';
import { git } from '../../support/git.js';

/** Real repositories and job worktrees for the merge queue's tests, removed after each test. */
export function useMergeFixture() {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const temp = (prefix: string): string => {
    const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
    dirs.push(dir);
    return dir;
  };

  /** A repository with a.txt (five lines) and an ignore rule, committed on main. */
  const repo = (): string => {
    const dir = temp('outrider-mq-');
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    writeFileSync(path.join(dir, '.gitignore'), 'ignored.txt\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    return dir;
  };

  /** The session's worktree jobs on `dir`, each made from the checkout, given its files and finished (committed). */
  const jobs = async (dir: string, specs: Record<string, Record<string, string>>, check?: MergeCheck) => {
    const worktrees = new WorktreeJobs({
      cwd: dir,
      stateDir: path.join(temp('outrider-mq-state-'), 'worktrees'),
      sessionId: 's1',
      check,
    });
    for (const [id, files] of Object.entries(specs)) {
      const record = await worktrees.prepare(id);
      for (const [file, content] of Object.entries(files)) writeFileSync(path.join(record.path, file), content);
      await worktrees.finish(id, `task of ${id}`);
    }
    return worktrees;
  };

  return { temp, repo, jobs };
}

/** `/agents merge <target>` as the user types it; nothing runs unless `running` says so. */
export function merge(
  worktrees: WorktreeJobs,
  target: string,
  options: { running?: string[]; signal?: AbortSignal } = {},
): Promise<{ content: string; isError: boolean }> {
  const running = options.running ?? [];
  return worktreeCommand(
    worktrees,
    'merge',
    target,
    (id) => running.includes(id),
    options.signal ? { signal: options.signal } : {},
  );
}

/** Everything the user could see of a checkout: each file's bytes, git's status, the index, HEAD and stash. */
export function checkoutState(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const entry of readdirSync(path.join(dir, at), { withFileTypes: true })) {
      const relative = path.join(at, entry.name);
      if (relative === '.git') continue;
      if (entry.isDirectory()) walk(relative);
      else files[relative] = readFileSync(path.join(dir, relative)).toString('base64');
    }
  };
  walk('');
  return {
    ...files,
    '(status)': git(dir, 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored'),
    '(index)': git(dir, 'diff', '--cached', '--binary'),
    '(head)': git(dir, 'rev-parse', 'HEAD'),
    '(stash)': git(dir, 'stash', 'list'),
  };
}

/** The job branches in the repository. */
export const branches = (dir: string): string[] =>
  git(dir, 'branch', '--list', 'outrider/*', '--format=%(refname:short)').split('\n').filter(Boolean);

/** The paths of the repository's worktrees other than the checkout itself. */
export const extraWorktrees = (dir: string): string[] =>
  git(dir, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
    .filter((where) => where !== dir);
