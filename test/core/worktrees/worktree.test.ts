import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  WorktreeError,
  commitWorktree,
  createWorktree,
  describeChanges,
  mergeWorktree,
  removeWorktree,
} from '../../../src/core/worktrees/worktree.js';

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

function repo(): string {
  const dir = temp('outrider-repo-');
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\nthree\n');
  writeFileSync(path.join(dir, '.gitignore'), 'ignored.txt\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

const start = (cwd: string, jobId: string) =>
  createWorktree({ cwd, stateDir: path.join(temp('outrider-state-'), 'worktrees'), sessionId: 's1', jobId });

describe('job worktrees', () => {
  it('starts from HEAD plus uncommitted and untracked files, leaving the index, tree and stash alone', async () => {
    const dir = repo();
    writeFileSync(path.join(dir, 'a.txt'), 'one\nTWO\nthree\n');
    writeFileSync(path.join(dir, 'staged.txt'), 'staged\n');
    git(dir, 'add', 'staged.txt');
    writeFileSync(path.join(dir, 'new.txt'), 'untracked\n');
    writeFileSync(path.join(dir, 'ignored.txt'), 'secret\n');
    const statusBefore = git(dir, 'status', '--porcelain');
    const indexBefore = git(dir, 'diff', '--cached');

    const info = await start(dir, 'sub-1');

    expect(info.branch).toBe('outrider/s1/sub-1');
    expect(readFileSync(path.join(info.path, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\n');
    expect(readFileSync(path.join(info.path, 'new.txt'), 'utf8')).toBe('untracked\n');
    expect(readFileSync(path.join(info.path, 'staged.txt'), 'utf8')).toBe('staged\n');
    expect(existsSync(path.join(info.path, 'ignored.txt'))).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe(statusBefore);
    expect(git(dir, 'diff', '--cached')).toBe(indexBefore);
    expect(git(dir, 'stash', 'list')).toBe('');
    expect(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
  });

  it('commits the job’s changes onto its branch and merges them into the checkout without touching the index', async () => {
    const dir = repo();
    writeFileSync(path.join(dir, 'mine.txt'), 'the user is editing\n');
    git(dir, 'add', 'mine.txt');
    const info = await start(dir, 'sub-1');
    writeFileSync(path.join(info.path, 'a.txt'), 'one\ntwo\nthree\nfour\n');
    writeFileSync(path.join(info.path, 'b.txt'), 'bee\n');

    const changes = await commitWorktree(info, 'sub-1: edits');
    expect(changes).toEqual({ files: ['a.txt', 'b.txt'], insertions: 2, deletions: 0 });
    expect(describeChanges(info, changes)).toBe('branch outrider/s1/sub-1 · 2 files changed (+2 −0): a.txt, b.txt');
    expect(git(dir, 'log', '--format=%s', '-1', info.branch).trim()).toBe('sub-1: edits');

    const result = await mergeWorktree(info);
    expect(result).toEqual({ ok: true, files: ['a.txt', 'b.txt'] });
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\nfour\n');
    expect(readFileSync(path.join(dir, 'b.txt'), 'utf8')).toBe('bee\n');
    // Staged before the merge, and only that: the merge left the index alone.
    expect(git(dir, 'diff', '--cached', '--name-only').trim()).toBe('mine.txt');

    await removeWorktree(info);
    expect(existsSync(info.path)).toBe(false);
    expect(git(dir, 'branch', '--list', info.branch).trim()).toBe('');
  });

  it('two jobs editing the same line: the first merges, the second names the file and changes nothing', async () => {
    const dir = repo();
    const first = await start(dir, 'sub-1');
    const second = await start(dir, 'sub-2');
    writeFileSync(path.join(first.path, 'a.txt'), 'one\nFIRST\nthree\n');
    writeFileSync(path.join(second.path, 'a.txt'), 'one\nSECOND\nthree\n');
    writeFileSync(path.join(second.path, 'other.txt'), 'clean\n');
    await commitWorktree(first, 'sub-1');
    await commitWorktree(second, 'sub-2');

    expect(await mergeWorktree(first)).toEqual({ ok: true, files: ['a.txt'] });
    const before = git(dir, 'status', '--porcelain');
    const result = await mergeWorktree(second);
    expect(result).toEqual({ ok: false, conflicts: [{ file: 'a.txt', reason: 'conflict (content)' }] });
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\nFIRST\nthree\n');
    expect(existsSync(path.join(dir, 'other.txt'))).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe(before);
  });

  it('an ignored file in the way of a new file refuses the merge and writes nothing', async () => {
    const dir = repo();
    const info = await start(dir, 'sub-1');
    writeFileSync(path.join(info.path, 'ignored.txt'), 'from the job\n');
    git(info.path, 'add', '-f', 'ignored.txt');
    writeFileSync(path.join(info.path, 'a.txt'), 'changed\n');
    await commitWorktree(info, 'sub-1');
    writeFileSync(path.join(dir, 'ignored.txt'), 'the user’s\n');

    const result = await mergeWorktree(info);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.conflicts.map((c) => c.file)).toContain('ignored.txt');
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(readFileSync(path.join(dir, 'ignored.txt'), 'utf8')).toBe('the user’s\n');
  });

  it('works on a detached HEAD', async () => {
    const dir = repo();
    git(dir, 'checkout', '-q', '--detach');
    const info = await start(dir, 'sub-1');
    writeFileSync(path.join(info.path, 'a.txt'), 'detached\n');
    await commitWorktree(info, 'sub-1');
    expect(await mergeWorktree(info)).toEqual({ ok: true, files: ['a.txt'] });
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('detached\n');
  });

  it('runs none of the repository’s hooks, fsmonitor or filters while creating, committing and merging', async () => {
    const dir = repo();
    const marker = path.join(temp('outrider-marker-'), 'ran');
    const evil = path.join(dir, 'evil.sh');
    writeFileSync(evil, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`, { mode: 0o755 });
    for (const hook of ['post-checkout', 'pre-commit', 'post-commit', 'reference-transaction']) {
      writeFileSync(path.join(dir, '.git', 'hooks', hook), `#!/bin/sh\necho ${hook} >> ${marker}\n`, { mode: 0o755 });
    }
    git(dir, 'config', 'core.fsmonitor', evil);
    git(dir, 'config', 'filter.x.clean', evil);
    git(dir, 'config', 'filter.x.smudge', evil);
    writeFileSync(path.join(dir, '.gitattributes'), '*.txt filter=x\n');
    writeFileSync(path.join(dir, 'a.txt'), 'dirty\n');

    const info = await start(dir, 'sub-1');
    writeFileSync(path.join(info.path, 'b.txt'), 'bee\n');
    await commitWorktree(info, 'sub-1');
    await mergeWorktree(info);
    await removeWorktree(info);
    expect(existsSync(marker)).toBe(false);
  });

  it('outside a git repository says so and how to fix it', async () => {
    const dir = temp('outrider-plain-');
    await expect(start(dir, 'sub-1')).rejects.toThrow(WorktreeError);
    await expect(start(dir, 'sub-1')).rejects.toThrow(/needs a git repository.*git init.*without isolation/);
  });
});
