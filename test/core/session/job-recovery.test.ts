/**
 * Recovery after a crash: each job the store shows cut off is ended interrupted in its own file
 * (so the next resume reads the same), its worktree salvaged first. Real git, real files.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED } from '../../../src/core/jobs/interrupted.js';
import type { Job } from '../../../src/core/jobs/job-types.js';
import { emptyUsage } from '../../../src/core/providers/types.js';
import { recoverJobs } from '../../../src/core/session/job-recovery.js';
import { JobRecords } from '../../../src/core/session/job-records.js';
import { readStoredJobs } from '../../../src/core/session/job-store.js';
import { sessionPaths } from '../../../src/core/session/store.js';
import { WorktreeJobs } from '../../../src/core/worktrees/worktree-jobs.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

const job = (id: string, extra: Partial<Job> = {}): Job => ({
  id,
  number: Number(id.slice(4)),
  state: 'running',
  definition: 'general',
  mode: 'typed',
  task: `task of ${id}`,
  createdAt: 1,
  startedAt: 2,
  turns: 0,
  toolCalls: 0,
  contextTokens: 0,
  usage: emptyUsage(),
  ...extra,
});

/** A project in git and a session whose jobs sub-1 (plain) and sub-2 (in a worktree) were running when it died. */
async function crashedSession() {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'outrider-recovery-')));
  const cwd = path.join(base, 'project');
  mkdirSync(cwd);
  git(cwd, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(cwd, 'a.txt'), 'one\n');
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-q', '-m', 'first');
  const paths = sessionPaths(path.join(base, 'sessions'), 'session');
  const session = { id: 'session', cwd, provider: 'anthropic', model: 'm' };
  const records = new JobRecords({
    paths,
    session,
    env: {},
    scrub: (t) => t,
    warn: (t) => expect.fail(t),
    events: { publish: () => {} },
  });
  for (const id of ['sub-1', 'sub-2']) records.record({ type: 'job_state', job: job(id) });
  const worktrees = new WorktreeJobs({ cwd, stateDir: path.join(paths.dir, 'worktrees'), sessionId: 'session' });
  const tree = await worktrees.prepare('sub-2');
  writeFileSync(path.join(tree.path, 'notes.txt'), 'what sub-2 found\n');
  writeFileSync(path.join(tree.path, 'a.txt'), 'one\ntwo\n');
  const recover = () => recoverJobs(readStoredJobs(paths), { paths, sessionId: 'session', cwd, env: {} });
  return { cwd, paths, tree, recover };
}

describe('recovering the jobs a crash cut off', () => {
  it("ends each as interrupted in its file and commits a worktree job's uncommitted files to its branch", async () => {
    const { cwd, paths, tree, recover } = await crashedSession();
    const { jobs, warnings } = await recover();
    expect(warnings).toEqual([]);
    const salvaged = `salvaged: 2 files (a.txt, notes.txt) committed to branch ${tree.branch}`;
    expect(jobs.map(({ job, owed }) => [job.id, job.state, job.interrupted, job.error, owed])).toEqual([
      ['sub-1', 'error', true, INTERRUPTED, true],
      ['sub-2', 'error', true, `${INTERRUPTED}; ${salvaged}`, true],
    ]);
    expect(git(cwd, 'show', `${tree.branch}:notes.txt`)).toBe('what sub-2 found\n');
    // The session's record of the worktree counts the salvaged work, as a merge will.
    const reloaded = new WorktreeJobs({ cwd, stateDir: path.join(paths.dir, 'worktrees'), sessionId: 'session' });
    expect(reloaded.get('sub-2')?.changes).toEqual({ files: ['a.txt', 'notes.txt'], insertions: 2, deletions: 0 });

    // The store now says so itself: a second resume reads the same jobs, no longer cut, still owed.
    const again = readStoredJobs(paths);
    expect(again.map(({ job, owed, cut }) => [job.id, job.error, owed, cut])).toEqual([
      ['sub-1', INTERRUPTED, true, false],
      ['sub-2', `${INTERRUPTED}; ${salvaged}`, true, false],
    ]);
    expect((await recover()).jobs.map(({ job }) => job.error)).toEqual([INTERRUPTED, `${INTERRUPTED}; ${salvaged}`]);
    expect(git(cwd, 'rev-list', '--count', `main..${tree.branch}`).trim()).toBe('1');
  });

  it('a worktree it cannot salvage is a warning that says where the files are, and the job still ends interrupted', async () => {
    const { paths, tree, recover } = await crashedSession();
    rmSync(tree.path, { recursive: true, force: true });
    const { jobs, warnings } = await recover();
    expect(warnings).toEqual([
      `could not salvage sub-2's worktree ${tree.path}: sub-2's worktree ${tree.path} is gone, so there is nothing to salvage; its files are still there (commit them by hand)`,
    ]);
    expect(jobs[1]!.job.error).toBe(`${INTERRUPTED}; its uncommitted files are still in ${tree.path}`);
    expect(readStoredJobs(paths)[1]).toMatchObject({ cut: false, owed: true, job: { interrupted: true } });
  });
});
