import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMergeCheck } from '../../../src/core/worktrees/merge-check.js';
import { git } from '../../support/git.js';
import { branches, checkoutState, extraWorktrees, merge, useMergeFixture } from './merge-fixture.js';

const { temp, repo, jobs } = useMergeFixture();

describe('the merge queue (several worktree jobs at once)', () => {
  it('applies the jobs in the order given, the check seeing each step, then writes the checkout and removes their worktrees', async () => {
    const dir = repo();
    const log = path.join(temp('outrider-mq-log-'), 'log');
    // Each run of the check records the job just applied and the files the temporary worktree holds then.
    const check = createMergeCheck({ command: `echo "$OUTRIDER_MERGE_JOB: $(ls *.txt | tr '\\n' ' ')" >> ${log}` });
    const worktrees = await jobs(
      dir,
      { 'sub-1': { 'b.txt': 'bee\n' }, 'sub-2': { 'c.txt': 'sea\n' }, 'sub-3': { 'd.txt': 'dee\n' } },
      check,
    );
    const paths = worktrees.list().map((record) => record.path);

    const result = await merge(worktrees, 'sub-3, 1 sub-2');

    expect(readFileSync(log, 'utf8')).toBe(
      ['sub-3: a.txt d.txt ', 'sub-1: a.txt b.txt d.txt ', 'sub-2: a.txt b.txt c.txt d.txt ', ''].join('\n'),
    );
    expect(result.isError).toBe(false);
    expect(result.content).toMatch(/^Merged sub-3, sub-1, sub-2, in that order, `echo .*` passing after each: applied /);
    expect(result.content).toContain(
      '- sub-3: d.txt (check passed)\n- sub-1: b.txt (check passed)\n- sub-2: c.txt (check passed)',
    );
    for (const [file, text] of [
      ['b.txt', 'bee\n'],
      ['c.txt', 'sea\n'],
      ['d.txt', 'dee\n'],
    ]) {
      expect(readFileSync(path.join(dir, file!), 'utf8')).toBe(text);
    }
    // Uncommitted, the index untouched; every worktree and branch is gone, the temporary one too.
    expect(git(dir, 'status', '--porcelain')).toBe('?? b.txt\n?? c.txt\n?? d.txt');
    expect(git(dir, 'diff', '--cached')).toBe('');
    expect(branches(dir)).toEqual([]);
    expect(extraWorktrees(dir)).toEqual([]);
    for (const where of paths) expect(existsSync(where)).toBe(false);
    expect(worktrees.list()).toEqual([]);
  });

  it('"all" takes every job with a worktree by job number, whatever order they were made in', async () => {
    const dir = repo();
    const worktrees = await jobs(dir, {
      'sub-10': { 'a.txt': 'one\ntwo\nthree\nfour\nTEN\n' },
      'sub-2': { 'a.txt': 'one\nTWO\nthree\nfour\nfive\n' },
      'sub-1': { 'b.txt': 'bee\n' },
    });
    const result = await merge(worktrees, 'all');
    expect(result.content).toMatch(/^Merged sub-1, sub-2, sub-10, in that order: applied /);
    expect(result.content).toContain('- sub-1: b.txt\n- sub-2: a.txt\n- sub-10: a.txt');
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\nfour\nTEN\n');
    expect(branches(dir)).toEqual([]);
  });

  it('a conflict at the second of three stops there: the checkout is byte for byte as it was, and every branch and worktree stays', async () => {
    const dir = repo();
    const check = createMergeCheck({ command: 'true' });
    const worktrees = await jobs(
      dir,
      {
        'sub-1': { 'a.txt': 'one\nFIRST\nthree\nfour\nfive\n' },
        'sub-2': { 'a.txt': 'one\nSECOND\nthree\nfour\nfive\n', 'e.txt': 'clean\n' },
        'sub-3': { 'c.txt': 'sea\n' },
      },
      check,
    );
    writeFileSync(path.join(dir, 'mine.txt'), 'the user’s work\n');
    const before = checkoutState(dir);

    const result = await merge(worktrees, 'sub-1 sub-2 sub-3');

    expect(result.isError).toBe(true);
    expect(result.content.split('\n')).toEqual([
      'Did not merge sub-1, sub-2, sub-3: sub-2 conflicts with the checkout and the jobs before it. Nothing in the checkout was changed, and every job’s branch and worktree is kept.',
      'Applied cleanly before it, in a temporary worktree (now removed): sub-1 (check passed).',
      'Not tried: sub-3.',
      'Conflicting files of sub-2:',
      '- a.txt: conflict (content)',
      'Merge the others without it, or have sub-2 rebase its work on the checkout (agent_send it a message), or discard it.',
    ]);
    expect(checkoutState(dir)).toEqual(before);
    expect(branches(dir)).toEqual(['outrider/s1/sub-1', 'outrider/s1/sub-2', 'outrider/s1/sub-3']);
    expect(worktrees.list().map((record) => record.jobId)).toEqual(['sub-1', 'sub-2', 'sub-3']);
    // The three job worktrees are there; the temporary one is not.
    expect(extraWorktrees(dir)).toEqual(worktrees.list().map((record) => record.path));
    for (const record of worktrees.list()) expect(existsSync(record.path)).toBe(true);
  });

  it("keeps the user's uncommitted, staged and untracked work, which the temporary worktree starts from", async () => {
    const dir = repo();
    writeFileSync(path.join(dir, 'staged.txt'), 'staged\n');
    git(dir, 'add', 'staged.txt');
    // The check fails unless the temporary worktree holds the user's untracked file and edit.
    const check = createMergeCheck({ command: 'test -f untracked.txt && grep -q EDITED a.txt' });
    const worktrees = await jobs(dir, { 'sub-1': { 'b.txt': 'bee\n' }, 'sub-2': { 'c.txt': 'sea\n' } }, check);
    writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\nthree\nfour\nEDITED\n');
    writeFileSync(path.join(dir, 'untracked.txt'), 'mine\n');
    writeFileSync(path.join(dir, 'ignored.txt'), 'secret\n');
    const index = git(dir, 'diff', '--cached');

    const result = await merge(worktrees, 'sub-1 sub-2');

    expect(result).toMatchObject({ isError: false });
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\nfour\nEDITED\n');
    expect(readFileSync(path.join(dir, 'untracked.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(path.join(dir, 'ignored.txt'), 'utf8')).toBe('secret\n');
    expect(readFileSync(path.join(dir, 'b.txt'), 'utf8')).toBe('bee\n');
    expect(readFileSync(path.join(dir, 'c.txt'), 'utf8')).toBe('sea\n');
    expect(git(dir, 'diff', '--cached')).toBe(index);
    expect(git(dir, 'stash', 'list')).toBe('');
  });

  it('a checkout changed during the merge so that the result no longer applies: nothing written, every branch kept', async () => {
    const dir = repo();
    // The "user" edits the line sub-1 changes while the check runs.
    const check = createMergeCheck({ command: `printf 'one\\nUSER\\nthree\\nfour\\nfive\\n' > "$OUTRIDER_CHECKOUT/a.txt"` });
    const worktrees = await jobs(
      dir,
      { 'sub-1': { 'a.txt': 'one\nJOB\nthree\nfour\nfive\n' }, 'sub-2': { 'b.txt': 'bee\n' } },
      check,
    );

    const result = await merge(worktrees, 'all');

    expect(result.isError).toBe(true);
    expect(result.content).toContain(
      'every job applied and passed the check, but the result does not apply to the checkout as it is now',
    );
    expect(result.content).toContain('- a.txt: conflict (content)');
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\nUSER\nthree\nfour\nfive\n');
    expect(existsSync(path.join(dir, 'b.txt'))).toBe(false);
    expect(branches(dir)).toHaveLength(2);
  });

  it('refuses a hostile list whole, naming every problem, before anything is done', async () => {
    const dir = repo();
    const worktrees = await jobs(dir, {
      'sub-1': { 'b.txt': 'bee\n' },
      'sub-2': { 'c.txt': 'sea\n' },
      'sub-3': { 'd.txt': 'dee\n' },
    });
    const before = checkoutState(dir);
    const refused = async (target: string, running: string[] = []) => {
      const result = await merge(worktrees, target, { running });
      expect(result.isError).toBe(true);
      return result.content;
    };

    expect(await refused('sub-1 ../x sub-1 sub-9 sub-3', ['sub-3'])).toBe(
      [
        'Nothing was merged:',
        '- "../x" is not a job id (ids look like sub-2, or 2)',
        '- sub-1 is named more than once',
        '- sub-9 has no worktree (jobs with one: sub-1, sub-2, sub-3)',
        '- sub-3 is still running; merge it once it has finished',
      ].join('\n'),
    );
    expect(await refused('../../etc/passwd')).toBe(
      'Nothing was merged: "../../etc/passwd" is not a job id (ids look like sub-2, or 2).',
    );
    expect(await refused('sub-1 all')).toMatch(/name either all or ids, not both/);
    expect(await refused('all', ['sub-2'])).toBe(
      'Nothing was merged: sub-2 is still running; wait for it, or name the finished ones (sub-1 sub-3).',
    );
    expect(await refused(' , ')).toMatch(/^Nothing was merged: name a job/);
    expect(await refused('sub-1 sub-\u202e2')).toContain('"sub-\\u{202e}2" is not a job id');
    // One id keeps its own answers.
    expect(await refused('sub-9')).toMatch(/^sub-9 has no worktree; jobs with one: sub-1, sub-2, sub-3/);
    expect(await refused('2', ['sub-2'])).toBe('sub-2 is still running; stop it or wait for it, then merge it');

    expect(checkoutState(dir)).toEqual(before);
    expect(branches(dir)).toHaveLength(3);
    expect(extraWorktrees(dir)).toHaveLength(3);
  });

  it('one id without a check merges straight into the checkout, as before', async () => {
    const dir = repo();
    const worktrees = await jobs(dir, { 'sub-1': { 'b.txt': 'bee\n' } });
    expect(await merge(worktrees, '1')).toEqual({
      content: 'Merged sub-1: applied b.txt to the checkout (uncommitted); its worktree and branch are removed.',
      isError: false,
    });
  });
});
