import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotCheckout } from '../../../src/core/worktrees/worktree.js';
import { git } from '../../support/git.js';

function repo(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-snapshot-'));
  git(dir, 'init', '-q', '-b', 'main');
  return dir;
}

describe('a snapshot of the checkout', () => {
  it('is HEAD itself when nothing changed', async () => {
    const dir = repo();
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    expect((await snapshotCheckout(dir, 'snap')).commit).toBe(git(dir, 'rev-parse', 'HEAD'));
  });

  it('holds uncommitted and untracked files on top of HEAD, and leaves the index and branch alone', async () => {
    const dir = repo();
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    writeFileSync(path.join(dir, 'a.txt'), 'changed\n');
    writeFileSync(path.join(dir, 'new.txt'), 'new\n');
    const { commit } = await snapshotCheckout(dir, 'snap');
    expect(git(dir, 'show', `${commit}:a.txt`)).toBe('changed');
    expect(git(dir, 'show', `${commit}:new.txt`)).toBe('new');
    expect(git(dir, 'rev-parse', `${commit}^`)).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(git(dir, 'status', '--porcelain').split('\n')).toEqual(['M a.txt', '?? new.txt']);
  });

  it('works in a repository without a commit yet', async () => {
    const dir = repo();
    writeFileSync(path.join(dir, 'only.txt'), 'only\n');
    const { commit } = await snapshotCheckout(dir, 'snap');
    expect(git(dir, 'show', `${commit}:only.txt`)).toBe('only');
  });
});
