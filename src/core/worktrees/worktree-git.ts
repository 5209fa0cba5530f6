import { execFile } from 'node:child_process';
import { makeWorkspace } from '../platform/paths.js';
import { readOnlySandboxEnv } from '../platform/read-only-sandbox.js';

/** What one git command printed, and how it exited. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A git command that failed where the caller cannot go on; its message names the command and git's words. */
export class WorktreeError extends Error {
  override name = 'WorktreeError';
}

/** Overrides for the commits outrider makes on a job's branch: no signing program, a fixed author. */
const COMMIT_ENV: Record<string, string> = {
  GIT_AUTHOR_NAME: 'outrider',
  GIT_AUTHOR_EMAIL: 'outrider@localhost',
  GIT_COMMITTER_NAME: 'outrider',
  GIT_COMMITTER_EMAIL: 'outrider@localhost',
};

/**
 * Runs git for worktree work in a repository outrider does not trust: the same hardening as
 * the read-only sandbox (no hooks, no fsmonitor, every filter, diff and merge driver the
 * repository's config names replaced, no transport), so creating or merging a worktree runs
 * no program the repository chose.
 */
export async function hardenedGit(
  cwd: string,
  options: { signal?: AbortSignal; base?: NodeJS.ProcessEnv } = {},
): Promise<(args: string[], extra?: { env?: Record<string, string>; input?: string }) => Promise<GitResult>> {
  const signal = options.signal ?? new AbortController().signal;
  const sandboxed = await readOnlySandboxEnv({ workspace: makeWorkspace(cwd), base: options.base ?? process.env, signal });
  if (!sandboxed.ok) throw new WorktreeError(sandboxed.error);
  const env = { ...sandboxed.env, ...COMMIT_ENV, GIT_OPTIONAL_LOCKS: '0' };
  return (args, extra = {}) =>
    new Promise((resolve) => {
      const child = execFile(
        'git',
        ['-c', 'commit.gpgSign=false', '-c', 'tag.gpgSign=false', ...args],
        { cwd, env: { ...env, ...extra.env }, signal, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
        (error, stdout, stderr) => {
          const code = error
            ? typeof (error as { code?: unknown }).code === 'number'
              ? (error as { code: number }).code
              : 1
            : 0;
          resolve({ code, stdout, stderr: stderr || (error && code === 1 && !stderr ? error.message : stderr) });
        },
      );
      if (extra.input !== undefined) child.stdin?.end(extra.input);
    });
}

/** A hardened git bound to one directory (what `hardenedGit` resolves with). */
export type Git = Awaited<ReturnType<typeof hardenedGit>>;

/** The result's output, or a WorktreeError naming what failed. */
export function expectOk(result: GitResult, what: string): string {
  if (result.code === 0) return result.stdout;
  const why = result.stderr.split('\n').find((line) => line.trim() !== '') ?? `exit code ${result.code}`;
  throw new WorktreeError(`${what} failed: ${why.trim()}`);
}
