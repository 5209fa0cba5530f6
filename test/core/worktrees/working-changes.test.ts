import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorktreeJobs } from '../../../src/core/worktrees/worktree-jobs.js';
import { git } from '../../support/git.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

function repo(): string {
  const dir = temp('outrider-repo-');
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

describe("what a running job's worktree changes now", () => {
  it('counts edited and new files as they stand, and leaves the worktree, its index and its branch as they were', async () => {
    const dir = repo();
    const jobs = new WorktreeJobs({ cwd: dir, stateDir: path.join(temp('outrider-state-'), 'worktrees'), sessionId: 's1' });
    const record = await jobs.prepare('sub-1');
    expect(await jobs.changesNow('sub-1', { running: true })).toEqual({ files: [], insertions: 0, deletions: 0 });

    writeFileSync(path.join(record.path, 'a.txt'), 'one\nTWO\nthree\n');
    writeFileSync(path.join(record.path, 'new.txt'), 'fresh\n');
    const status = git(record.path, 'status', '--porcelain');
    const head = git(record.path, 'rev-parse', 'HEAD');

    const changes = await jobs.changesNow('sub-1', { running: true });
    expect(changes).toEqual({ files: ['a.txt', 'new.txt'], insertions: 3, deletions: 1 });
    expect(git(record.path, 'status', '--porcelain')).toBe(status);
    expect(git(record.path, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(record.path, 'diff', '--cached')).toBe('');
    // The user's checkout is untouched too.
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it("an ended job's changes are what its run committed; a job without a worktree has none", async () => {
    const dir = repo();
    const jobs = new WorktreeJobs({ cwd: dir, stateDir: path.join(temp('outrider-state-'), 'worktrees'), sessionId: 's1' });
    const record = await jobs.prepare('sub-1');
    writeFileSync(path.join(record.path, 'b.txt'), 'b\n');
    await jobs.finish('sub-1', 'write b');
    // Written after the run ended (by hand): not what the job changed.
    writeFileSync(path.join(record.path, 'late.txt'), 'late\n');
    expect(await jobs.changesNow('sub-1', { running: false })).toEqual({ files: ['b.txt'], insertions: 1, deletions: 0 });
    expect(await jobs.changesNow('sub-9', { running: true })).toBeUndefined();
  });
});
