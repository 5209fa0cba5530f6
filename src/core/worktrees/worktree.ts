import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Git, WorktreeError, expectOk, hardenedGit } from './worktree-git.js';

export { WorktreeError } from './worktree-git.js';

/** One job's worktree: where it is, its branch, and the commit its changes are measured from. */
export interface WorktreeInfo {
  jobId: string;
  /** The user's checkout (the repository's top level). */
  repo: string;
  path: string;
  branch: string;
  /** The parent's HEAD plus its uncommitted changes when the job started. */
  base: string;
}

/** What a job changed on its branch. */
export interface WorktreeChanges {
  files: string[];
  insertions: number;
  deletions: number;
}

/** A merge's outcome: applied to the checkout, or refused with the conflicting files and nothing changed. */
export type MergeResult = { ok: true; files: string[] } | { ok: false; conflicts: { file: string; reason: string }[] };

/**
 * A commit holding the working tree of `cwd` as it is now: HEAD plus tracked changes plus
 * untracked files that are not ignored. Built in a temporary copy of the index, so the
 * user's index, working tree and stash are left as they were.
 */
export async function snapshotCommit(git: Git, message: string, parent?: string): Promise<string> {
  // One git for three facts (each git costs a process): the index's path, HEAD and its tree.
  // A repository without a commit yet fails it; its index path is then asked alone.
  const probe = await git(['rev-parse', '--path-format=absolute', '--git-path', 'index', 'HEAD^{commit}', 'HEAD^{tree}']);
  const [indexPath, headCommit, headTree] = probe.code === 0 ? probe.stdout.trim().split('\n') : [];
  const head = headCommit ?? '';
  const userIndex = path.resolve(
    indexPath ?? expectOk(await git(['rev-parse', '--path-format=absolute', '--git-path', 'index']), 'git rev-parse').trim(),
  );
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'outrider-index-'));
  try {
    const index = path.join(scratch, 'index');
    const env = { GIT_INDEX_FILE: index };
    // A copy of the user's index keeps git's stat cache: only changed files are hashed again.
    if (existsSync(userIndex)) copyFileSync(userIndex, index);
    else if (head) expectOk(await git(['read-tree', head], { env }), 'git read-tree');
    expectOk(await git(['add', '-A', '--', '.'], { env }), 'git add (snapshot)');
    const tree = expectOk(await git(['write-tree'], { env }), 'git write-tree').trim();
    const parents = parent ?? head;
    if (!parent && head && tree === headTree) return head;
    const args = ['commit-tree', tree, ...(parents ? ['-p', parents] : []), '-m', message];
    return expectOk(await git(args), 'git commit-tree').trim();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The checkout holding `cwd` as it is now (HEAD plus uncommitted changes), as one commit in its
 * repository; the user's index, working tree and branches are left as they were.
 */
export async function snapshotCheckout(cwd: string, message: string): Promise<{ repo: string; commit: string }> {
  return (await checkoutSnapshots(cwd)).take(message);
}

/**
 * Snapshots of one checkout, taken again and again (a queue job each): the repository is found
 * once. Its hardened git is made for each snapshot, as the repository's config may have changed
 * since (a filter or hook added would otherwise run).
 */
export async function checkoutSnapshots(
  cwd: string,
): Promise<{ take(message: string): Promise<{ repo: string; commit: string }> }> {
  const repo = await repositoryRoot(cwd);
  return { take: async (message) => ({ repo, commit: await snapshotCommit(await hardenedGit(repo), message) }) };
}

/** The top level of the git checkout holding `cwd`, or a clear error when there is none. */
export async function repositoryRoot(cwd: string): Promise<string> {
  const git = await hardenedGit(cwd);
  const result = await git(['rev-parse', '--show-toplevel']);
  if (result.code !== 0) {
    throw new WorktreeError(
      `isolation "worktree" needs a git repository, and ${cwd} is not in one; run "git init" there or start the sub-agent without isolation`,
    );
  }
  return result.stdout.trim();
}

/**
 * Makes a worktree for `jobId` under `stateDir`, on branch `outrider/<session>/<jobId>`, from
 * the checkout's HEAD plus its uncommitted changes.
 */
export async function createWorktree(options: {
  cwd: string;
  stateDir: string;
  sessionId: string;
  jobId: string;
}): Promise<WorktreeInfo> {
  const repo = await repositoryRoot(options.cwd);
  const git = await hardenedGit(repo);
  const base = await snapshotCommit(git, `outrider: the checkout as ${options.jobId} started`);
  const branch = `outrider/${options.sessionId}/${options.jobId}`;
  const where = path.join(options.stateDir, options.jobId);
  mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
  // A branch left by an earlier worktree of this job (discarded by hand) is replaced.
  expectOk(await git(['worktree', 'add', '--force', '-B', branch, where, base]), 'git worktree add');
  return { jobId: options.jobId, repo, path: where, branch, base };
}

/** Commits whatever the job left in its worktree onto its branch, and says what changed since its base. */
export async function commitWorktree(info: WorktreeInfo, message: string): Promise<WorktreeChanges> {
  const git = await hardenedGit(info.path);
  expectOk(await git(['add', '-A', '--', '.']), 'git add');
  const staged = await git(['diff', '--cached', '--quiet']);
  if (staged.code === 1) expectOk(await git(['commit', '-q', '--no-verify', '-m', message]), 'git commit');
  return changesOf(git, info.base, 'HEAD');
}

/**
 * What a job's worktree changes now against its base, files not yet committed included (a
 * running job's): its files are snapshot through a scratch index, so the worktree, its index
 * and its branch are left as they are.
 */
export async function workingChanges(info: WorktreeInfo): Promise<WorktreeChanges> {
  const git = await hardenedGit(info.path);
  const snapshot = await snapshotCommit(git, `${info.jobId}: its worktree as it stands`, info.base);
  return changesOf(git, info.base, snapshot);
}

/** What changed between two commits (or trees). */
export async function changesOf(git: Git, from: string, to: string): Promise<WorktreeChanges> {
  return parseNumstat(expectOk(await git(['diff', '--numstat', '-z', '--no-renames', from, to]), 'git diff'));
}

/** What `git diff --numstat -z --no-renames` says changed: the files, and lines added and removed. */
export function parseNumstat(numstat: string): WorktreeChanges {
  const files: string[] = [];
  let insertions = 0;
  let deletions = 0;
  for (const entry of numstat.split('\0')) {
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(entry);
    if (!match) continue;
    insertions += match[1] === '-' ? 0 : Number(match[1]);
    deletions += match[2] === '-' ? 0 : Number(match[2]);
    files.push(match[3]);
  }
  return { files, insertions, deletions };
}

/** `branch outrider/s/sub-1 · 2 files changed (+5 −1)`: the line a completion ends with. */
export function describeChanges(info: Pick<WorktreeInfo, 'branch'>, changes: WorktreeChanges): string {
  const count = changes.files.length;
  if (count === 0) return `branch ${info.branch} · no files changed`;
  return `branch ${info.branch} · ${count} ${count === 1 ? 'file' : 'files'} changed (+${changes.insertions} −${changes.deletions}): ${changes.files.join(', ')}`;
}

/**
 * Applies the job's branch (its base to its tip) to the user's checkout as uncommitted changes.
 * The merge is worked out first, between the checkout as it is now and the branch; when any
 * file conflicts, or the result cannot be written (an ignored file in the way), nothing in the
 * checkout changes and every such file is named. The user's index is never touched.
 */
export async function mergeWorktree(info: WorktreeInfo): Promise<MergeResult> {
  const git = await hardenedGit(info.repo);
  const tip = expectOk(await git(['rev-parse', '--verify', `${info.branch}^{commit}`]), `git rev-parse ${info.branch}`).trim();
  return applyToCheckout(git, info.base, tip);
}

/**
 * Applies what `tip` changed since `base` to the checkout `git` runs in, as uncommitted changes:
 * merged with the checkout as it is now, or nothing written and the conflicting files named.
 */
export async function applyToCheckout(git: Git, base: string, tip: string): Promise<MergeResult> {
  // The checkout now, as a child of the base, so the merge base is the base.
  const current = await snapshotCommit(git, 'outrider: the checkout before the merge', base);
  const merged = await mergeOnto(git, current, tip);
  if (!merged.ok) return merged;
  const patch = expectOk(await git(['diff', '--binary', '--full-index', current, merged.tree]), 'git diff');
  const files = (await changesOf(git, current, merged.tree)).files;
  if (patch.trim() === '') return { ok: true, files: [] };
  const check = await git(['apply', '--check', '--binary', '-'], { input: patch });
  if (check.code !== 0) {
    const failed = [...check.stderr.matchAll(/error: (?:patch failed: )?([^:\n]+?)(?::\d+)?: (.*)/g)].map((m) => ({
      file: m[1]!,
      reason: m[2]!,
    }));
    return { ok: false, conflicts: failed.length ? failed : files.map((file) => ({ file, reason: check.stderr.trim() })) };
  }
  expectOk(await git(['apply', '--binary', '-'], { input: patch }), 'git apply');
  return { ok: true, files };
}

/**
 * Merges `tip` into `current` in git's object store alone (no working tree): the merge base is
 * theirs in common, so `current` is made a child of the base its changes are measured from.
 * The merged tree, or every conflicting file.
 */
export async function mergeOnto(
  git: Git,
  current: string,
  tip: string,
): Promise<{ ok: true; tree: string } | { ok: false; conflicts: { file: string; reason: string }[] }> {
  const merged = await git(['merge-tree', '--write-tree', '--name-only', '-z', current, tip]);
  if (merged.code > 1) expectOk(merged, 'git merge-tree');
  const fields = merged.stdout.split('\0');
  if (merged.code === 1) return { ok: false, conflicts: conflictsOf(fields.slice(1)) };
  return { ok: true, tree: fields[0]!.trim() };
}

/** From merge-tree's `-z --name-only` output after the tree: file names, then an empty field, then messages. */
function conflictsOf(fields: string[]): { file: string; reason: string }[] {
  const end = fields.indexOf('');
  const names = [...new Set(fields.slice(0, end < 0 ? fields.length : end))];
  const messages = end < 0 ? [] : fields.slice(end + 1);
  return names.map((file) => {
    // Messages come as: count of paths, paths…, type, text.
    const text = messages.find((m) => m.startsWith('CONFLICT') && m.includes(file));
    const kind = text ? /^CONFLICT \(([^)]+)\)/.exec(text)?.[1] : undefined;
    return { file, reason: kind ? `conflict (${kind})` : 'conflict' };
  });
}

/** Removes the job's worktree and its branch (after a merge, or when discarded). */
export async function removeWorktree(info: WorktreeInfo): Promise<void> {
  const git = await hardenedGit(info.repo);
  // A branch made elsewhere (a queue job's, fetched here) has no worktree on this machine.
  if (info.path) {
    await git(['worktree', 'remove', '--force', info.path]);
    rmSync(info.path, { recursive: true, force: true });
    await git(['worktree', 'prune']);
  }
  await git(['branch', '-D', info.branch]);
}
