import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeSalvage, salvageWorktree } from '../../../src/core/worktrees/salvage.js';
import { WorktreeError, createWorktree } from '../../../src/core/worktrees/worktree.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

async function worktree() {
  const repo = temp('outrider-repo-');
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'first');
  const info = await createWorktree({
    cwd: repo,
    stateDir: path.join(temp('outrider-state-'), 'worktrees'),
    sessionId: 's1',
    jobId: 'sub-2',
  });
  return { repo, info };
}

describe('salvaging a worktree a crash left', () => {
  it('commits what the job wrote and never committed onto its branch, past the index lock a killed git left', async () => {
    const { repo, info } = await worktree();
    writeFileSync(path.join(info.path, 'a.txt'), 'one\nTWO\n');
    writeFileSync(path.join(info.path, 'notes.txt'), 'found it\n');
    writeFileSync(path.resolve(info.path, git(info.path, 'rev-parse', '--git-path', 'index.lock').trim()), '');

    const salvage = await salvageWorktree(info, 'sub-2: salvaged after the session ended');

    expect(salvage.files.sort()).toEqual(['a.txt', 'notes.txt']);
    expect(salvage.changes).toEqual({ files: ['a.txt', 'notes.txt'], insertions: 2, deletions: 0 });
    expect(git(repo, 'show', `${info.branch}:notes.txt`)).toBe('found it\n');
    expect(git(repo, 'log', '-1', '--format=%s', info.branch).trim()).toBe('sub-2: salvaged after the session ended');
    expect(git(info.path, 'status', '--porcelain')).toBe('');
    // The user's checkout is untouched.
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(describeSalvage(salvage, info.branch)).toBe(`salvaged: 2 files (a.txt, notes.txt) committed to branch ${info.branch}`);
  });

  it('a clean worktree salvages nothing and makes no commit; a removed one is an error that says so', async () => {
    const { repo, info } = await worktree();
    const before = git(repo, 'rev-parse', info.branch);
    expect((await salvageWorktree(info, 'nothing')).files).toEqual([]);
    expect(git(repo, 'rev-parse', info.branch)).toBe(before);
    rmSync(info.path, { recursive: true, force: true });
    await expect(salvageWorktree(info, 'gone')).rejects.toThrow(WorktreeError);
    await expect(salvageWorktree(info, 'gone')).rejects.toThrow(/sub-2's worktree .* is gone, so there is nothing to salvage/);
    expect(describeSalvage({ files: ['1', '2', '3', '4', '5', '6', '7'] }, 'b')).toBe(
      'salvaged: 7 files (1, 2, 3, 4, 5, 2 more) committed to branch b',
    );
  });
});
