/**
 * The merge queue: several jobs' branches applied one after another, in the order given, to a
 * temporary worktree of the checkout as it is (HEAD plus its uncommitted changes), the merge
 * check run after each. Only when every job applies and every check passes is the result applied
 * to the checkout, as uncommitted changes, the way a single merge applies one branch. The
 * temporary worktree is always removed; branches and job worktrees are the caller's.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { CheckOutcome, MergeCheck } from './merge-check.js';
import { type Git, expectOk, hardenedGit } from './worktree-git.js';
import { applyToCheckout, changesOf, mergeOnto, snapshotCommit } from './worktree.js';

/** One job to apply: its branch, and the commit its changes are measured from. */
export interface QueueJob {
  jobId: string;
  branch: string;
  base: string;
}

/** A job applied in the temporary worktree: its files, and its check's outcome when there is a check. */
export interface QueueStep {
  jobId: string;
  files: string[];
  check?: CheckOutcome;
}

/** Where and why the queue stopped. */
export type QueueStop =
  /** The job's branch conflicts with what came before it (the checkout, earlier jobs). */
  | { kind: 'conflict'; jobId: string; conflicts: { file: string; reason: string }[] }
  /** The check failed after the job was applied. */
  | { kind: 'check'; jobId: string; check: Extract<CheckOutcome, { ok: false }> }
  /** The job's branch cannot be read. */
  | { kind: 'branch'; jobId: string; message: string }
  /** Every job applied, but the result does not apply to the checkout as it is now (it changed meanwhile). */
  | { kind: 'checkout'; conflicts: { file: string; reason: string }[] }
  /** The merge was stopped (the tool call's turn was interrupted). */
  | { kind: 'interrupted'; jobId?: string };

/** What the queue did: every job applied and the checkout written, or where it stopped with nothing written. */
export type QueueResult =
  { ok: true; steps: QueueStep[]; files: string[] } | { ok: false; applied: QueueStep[]; stop: QueueStop; notTried: string[] };

export interface QueueOptions {
  /** The checkout (its repository's top level). */
  repo: string;
  /** Where the temporary worktree is made (a folder of the session's). */
  scratchDir: string;
  check?: MergeCheck;
  signal: AbortSignal;
}

/** Applies `jobs` in order in a temporary worktree, checking after each, then to the checkout when all passed. */
export async function runMergeQueue(jobs: readonly QueueJob[], options: QueueOptions): Promise<QueueResult> {
  const { repo, check, signal } = options;
  const git = await hardenedGit(repo);
  const start = await snapshotCommit(git, 'outrider: the checkout before the merge queue');
  mkdirSync(options.scratchDir, { recursive: true, mode: 0o700 });
  const dir = path.join(options.scratchDir, `merge-${randomBytes(6).toString('hex')}`);
  expectOk(await git(['worktree', 'add', '--detach', dir, start]), 'git worktree add (merge queue)');
  const applied: QueueStep[] = [];
  const stopped = (stop: QueueStop, at: number): QueueResult => ({
    ok: false,
    applied,
    stop,
    notTried: jobs.slice(at + (stop.kind === 'interrupted' && !stop.jobId ? 0 : 1)).map((job) => job.jobId),
  });
  try {
    const scratch = await hardenedGit(dir);
    let current = start;
    for (const [at, job] of jobs.entries()) {
      if (signal.aborted) return stopped({ kind: 'interrupted' }, at);
      const tip = await git(['rev-parse', '--verify', '--quiet', `${job.branch}^{commit}`]);
      if (tip.code !== 0) {
        const message = `its branch ${job.branch} is gone (deleted outside outrider?); discard the job`;
        return stopped({ kind: 'branch', jobId: job.jobId, message }, at);
      }
      const next = await applyJob(git, current, job, tip.stdout.trim());
      if (!next.ok) return stopped({ kind: 'conflict', jobId: job.jobId, conflicts: next.conflicts }, at);
      // The check may have changed tracked files: they are thrown away, as the result is read from commits.
      expectOk(await scratch(['checkout', '--quiet', '--force', '--detach', next.commit]), 'git checkout (merge queue)');
      const files = (await changesOf(git, current, next.commit)).files;
      const step: QueueStep = { jobId: job.jobId, files };
      if (check) {
        const outcome = await check.run(dir, { signal, env: { OUTRIDER_CHECKOUT: repo, OUTRIDER_MERGE_JOB: job.jobId } });
        if (!outcome.ok) {
          if (outcome.stopped === 'abort') return stopped({ kind: 'interrupted', jobId: job.jobId }, at);
          return stopped({ kind: 'check', jobId: job.jobId, check: outcome }, at);
        }
        step.check = outcome;
      }
      applied.push(step);
      current = next.commit;
    }
    if (signal.aborted) return stopped({ kind: 'interrupted' }, jobs.length);
    const result = await applyToCheckout(git, start, current);
    if (!result.ok) return stopped({ kind: 'checkout', conflicts: result.conflicts }, jobs.length);
    return { ok: true, steps: applied, files: result.files };
  } finally {
    await git(['worktree', 'remove', '--force', dir]);
    rmSync(dir, { recursive: true, force: true });
    await git(['worktree', 'prune']);
  }
}

/**
 * The job's branch merged onto `current` (the checkout with the jobs before it), as a commit
 * child of `current`; or its conflicting files. Measured from the job's base, as one merge is.
 */
async function applyJob(
  git: Git,
  current: string,
  job: QueueJob,
  tip: string,
): Promise<{ ok: true; commit: string } | { ok: false; conflicts: { file: string; reason: string }[] }> {
  const tree = expectOk(await git(['rev-parse', `${current}^{tree}`]), 'git rev-parse').trim();
  const onBase = expectOk(
    await git(['commit-tree', tree, '-p', job.base, '-m', 'outrider: the merge so far, on the job’s base']),
    'git commit-tree',
  ).trim();
  const merged = await mergeOnto(git, onBase, tip);
  if (!merged.ok) return merged;
  const commit = expectOk(
    await git(['commit-tree', merged.tree, '-p', current, '-m', `outrider: merge queue applied ${job.jobId}`]),
    'git commit-tree',
  ).trim();
  return { ok: true, commit };
}
