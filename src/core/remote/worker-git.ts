/**
 * The worker's git: one bare cache clone per shared remote, a fresh worktree of the job's
 * commit for each job (never a checkout of its own), and the job's changes committed and pushed
 * back as `outrider/<session>/<job>`. The worker's own git credentials fetch and push; only
 * plain transports are allowed (no `ext::`), no hook or fsmonitor runs, nothing prompts.
 */
import { parseNumstat } from '../worktrees/worktree.js';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { RemoteBranch } from './channels.js';

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Transports a job's remote may use. */
const ALLOWED_PROTOCOLS = 'file:git:http:https:ssh';

/** One job's worktree, with what to do once the child is done. */
export interface JobCheckout {
  path: string;
  /** The commit the job started from. */
  base: string;
  /** Commits what the child changed and pushes it as `branch`; undefined when nothing changed. */
  pushChanges(branch: string, message: string): Promise<RemoteBranch | undefined>;
  /** Removes the worktree and the job's fetched ref. */
  remove(): Promise<void>;
}

interface CheckoutOptions {
  remote: string;
  commit: string;
  ref?: string;
  remoteId: string;
  signal?: AbortSignal;
}

/** A git command failed; the message names it and git's first line. */
export class WorkerGitError extends Error {
  override name = 'WorkerGitError';
}

/** The worker's git caches: one per remote, each used by one command sequence at a time. */
export class GitCache {
  /** Per cache repository, the tail of its chain of git work (fetches into it do not overlap). */
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Remotes whose last checkout failed: until one succeeds, a job's child waits for its files. */
  private readonly failing = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** A fresh worktree of `commit` from `remote` (fetched under `ref` when given, else by id). */
  async checkout(options: CheckoutOptions): Promise<JobCheckout> {
    try {
      const checkout = await this.checkoutOnce(options);
      this.failing.delete(options.remote);
      return checkout;
    } catch (error) {
      if (!options.signal?.aborted) this.failing.add(options.remote);
      throw error;
    }
  }

  /** Whether the last checkout from `remote` succeeded (or none was tried yet). */
  reaches(remote: string): boolean {
    return !this.failing.has(remote);
  }

  private async checkoutOnce(options: CheckoutOptions): Promise<JobCheckout> {
    const repo = path.join(this.dir, 'repos', createHash('sha256').update(options.remote).digest('hex').slice(0, 16));
    const worktree = this.worktreePath(options.remoteId);
    const jobRef = `refs/outrider-jobs/${options.remoteId}`;
    const git = (cwd: string, args: string[]) => runGit(cwd, args, this.env, options.signal);
    const after = (cwd: string, args: string[]) => runGit(cwd, args, this.env);
    await this.serially(repo, async () => {
      if (!existsSync(path.join(repo, 'HEAD'))) {
        mkdirSync(repo, { recursive: true });
        ok(await git(repo, ['init', '--bare', '-q']), 'git init');
      }
      const has = async () => (await git(repo, ['cat-file', '-e', `${options.commit}^{commit}`])).code === 0;
      // Jobs of one batch share their snapshot: only the first of them fetches it (its ref then
      // names the commit already; the others mark it below).
      let held = await has();
      if (!held && options.ref) {
        const fetched = await git(repo, ['fetch', '--no-tags', '-q', options.remote, `+${options.ref}:${jobRef}`]);
        held = fetched.code === 0 && (await has());
        if (held) return;
      }
      if (!held) {
        const fetched = await git(repo, ['fetch', '--no-tags', '-q', options.remote, options.commit]);
        if (fetched.code !== 0 || !(await has())) {
          const why = firstLine(fetched.stderr) ?? 'not found after fetching';
          throw new WorkerGitError(
            `commit ${options.commit} is not on ${options.remote} (${why}): the session must push it there first`,
          );
        }
      }
      // Keeps the commit reachable while the job runs (a gc would otherwise be free to drop it).
      ok(await git(repo, ['update-ref', jobRef, options.commit]), 'git update-ref');
    });
    // Each job's worktree is its own (named by its queue id): jobs check theirs out side by side.
    // A retry of the same job on this machine finds its old worktree: start clean.
    if (existsSync(worktree)) {
      await git(repo, ['worktree', 'remove', '--force', worktree]);
      rmSync(worktree, { recursive: true, force: true });
      await git(repo, ['worktree', 'prune']);
    }
    ok(await git(repo, ['worktree', 'add', '--detach', '-q', worktree, options.commit]), 'git worktree add');

    return {
      path: worktree,
      base: options.commit,
      // Runs after the child, stopped or not: what a stopped job wrote is pushed too.
      pushChanges: async (branch, message) => {
        ok(await after(worktree, ['add', '-A', '--', '.']), 'git add');
        if ((await after(worktree, ['diff', '--cached', '--quiet'])).code === 0) return undefined;
        ok(await after(worktree, ['commit', '-q', '--no-verify', '-m', message]), 'git commit');
        const commit = ok(await after(worktree, ['rev-parse', 'HEAD']), 'git rev-parse').trim();
        const numstat = ok(
          await after(worktree, ['diff', '--numstat', '-z', '--no-renames', options.commit, commit]),
          'git diff',
        );
        ok(
          await after(worktree, ['push', '-q', '--force', options.remote, `${commit}:refs/heads/${branch}`]),
          `git push ${branch}`,
        );
        return { name: branch, commit, ...parseNumstat(numstat) };
      },
      remove: () =>
        this.serially(repo, async () => {
          await runGit(repo, ['worktree', 'remove', '--force', worktree], this.env);
          rmSync(worktree, { recursive: true, force: true });
          await runGit(repo, ['update-ref', '-d', jobRef], this.env);
        }),
    };
  }

  /**
   * Where the job's worktree will be, known before it is made (its parent folder is made now, so
   * the path resolves to the real one it will have): the child may start before its files are there.
   */
  worktreePath(remoteId: string): string {
    const parent = path.join(this.dir, 'worktrees');
    mkdirSync(parent, { recursive: true });
    return path.join(parent, remoteId);
  }

  private serially<T>(repo: string, work: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(repo) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.chains.set(repo, next);
    void next
      .finally(() => {
        if (this.chains.get(repo) === next) this.chains.delete(repo);
      })
      .catch(() => undefined);
    return next;
  }
}

function firstLine(text: string): string | undefined {
  return text
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim();
}

function ok(result: GitResult, what: string): string {
  if (result.code === 0) return result.stdout;
  throw new WorkerGitError(`${what} failed: ${firstLine(result.stderr) ?? `exit code ${result.code}`}`);
}

/** git for the shared remote: plain transports only, no hooks, no prompt for a password. */
export function runGit(cwd: string, args: string[], env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<GitResult> {
  const hardened = [
    '-c',
    'core.hooksPath=/dev/null',
    '-c',
    'core.fsmonitor=false',
    '-c',
    'commit.gpgSign=false',
    '-c',
    'user.name=outrider',
    '-c',
    'user.email=outrider@localhost',
  ];
  return new Promise((resolve) => {
    execFile(
      'git',
      [...hardened, ...args],
      {
        cwd,
        env: { ...env, GIT_TERMINAL_PROMPT: '0', GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS, GIT_OPTIONAL_LOCKS: '0' },
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
        ...(signal ? { signal } : {}),
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
        resolve({ code, stdout, stderr: stderr || (error ? error.message : '') });
      },
    );
  });
}
