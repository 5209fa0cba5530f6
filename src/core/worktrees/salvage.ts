/**
 * What a crash leaves in an isolated job's worktree: files it wrote that were never committed
 * (a job's work is committed when its run ends, and this one never ended). Salvaging commits
 * them onto its branch, so nothing it wrote is lost and `agent_merge` sees it.
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type WorktreeChanges, type WorktreeInfo, WorktreeError, commitWorktree } from './worktree.js';
import { expectOk, hardenedGit } from './worktree-git.js';

/** What a salvage committed, and what the branch now holds against the job's base. */
export interface Salvage {
  /** The files the salvage commit holds (none: the worktree had nothing uncommitted). */
  files: string[];
  changes: WorktreeChanges;
}

/** Commits whatever the job's worktree holds uncommitted onto its branch. */
export async function salvageWorktree(info: WorktreeInfo, message: string): Promise<Salvage> {
  if (!existsSync(info.path)) {
    throw new WorktreeError(`${info.jobId}'s worktree ${info.path} is gone, so there is nothing to salvage`);
  }
  const git = await hardenedGit(info.path);
  // A git command the crash cut short leaves its index lock, and nothing else uses this worktree now.
  const lock = expectOk(await git(['rev-parse', '--path-format=absolute', '--git-path', 'index.lock']), 'git rev-parse');
  rmSync(path.resolve(lock.trim()), { force: true });
  expectOk(await git(['add', '-A', '--', '.']), 'git add');
  const staged = expectOk(await git(['diff', '--cached', '--name-only', '-z']), 'git diff --cached');
  const files = staged.split('\0').filter((file) => file !== '');
  const changes = await commitWorktree(info, message);
  return { files, changes };
}

/** `salvaged: 3 files (a.txt, b.txt, c.txt) committed to branch outrider/s/sub-2`: what an interrupted job's error ends with. */
export function describeSalvage(salvage: Pick<Salvage, 'files'>, branch: string): string {
  const { files } = salvage;
  const shown = files.length > 5 ? [...files.slice(0, 5), `${files.length - 5} more`] : files;
  return `salvaged: ${files.length} ${files.length === 1 ? 'file' : 'files'} (${shown.join(', ')}) committed to branch ${branch}`;
}
