import path from 'node:path';
import * as z from 'zod';
import { type AnyTool, defineTool } from '../tools/define.js';
import { normalizeJobId } from '../jobs/job-ids.js';
import { describeQueue } from './merge-report.js';
import { isJobId, mergeTargets } from './merge-targets.js';
import type { MergeReport, WorktreeJobs } from './worktree-jobs.js';
import { WorktreeError } from './worktree.js';

/** The words a merge's outcome is told in, to the model and to the user alike. */
export function describeMerge(jobId: string, report: MergeReport): { content: string; isError: boolean } {
  const overlaps = report.overlaps.map((o) => `also touched by ${o.jobId}: ${o.files.join(', ')}`);
  if (!report.ok) {
    const lines = report.conflicts.map((c) => `- ${c.file}: ${c.reason}`);
    return {
      content: [
        `Did not merge ${jobId}: nothing in the checkout was changed. Conflicting files:`,
        ...lines,
        ...overlaps,
        `Resolve them (e.g. agent_send ${jobId} a message to rebase its work on the checkout), or discard it.`,
      ].join('\n'),
      isError: true,
    };
  }
  const what = report.files.length ? `applied ${report.files.join(', ')} to the checkout (uncommitted)` : 'it changed nothing';
  return { content: [`Merged ${jobId}: ${what}; its worktree and branch are removed.`, ...overlaps].join('\n'), isError: false };
}

/** `agent_merge`: the parent applies isolated jobs' branches to the user's checkout; gated like a write. */
export function worktreeTools(
  worktrees: WorktreeJobs,
  isRunning: (jobId: string) => boolean,
  writersOf: (absoluteFile: string) => string[] = () => [],
): AnyTool[] {
  const check = worktrees.check?.command;
  const merge = defineTool({
    name: 'agent_merge',
    description:
      'Apply the changes of finished sub-agents that ran with isolation "worktree" to the checkout, as uncommitted ' +
      'changes. When a file conflicts nothing is changed and the conflicting files are listed. Several jobs (or all) ' +
      'are applied in the order given to a temporary copy of the checkout' +
      (check ? `, the check \`${check}\` run after each` : '') +
      '; the checkout is written only when every job applies' +
      (check ? ' and every check passes' : '') +
      ', otherwise nothing changes and the result names the job that stopped it.',
    kind: 'mutating',
    schema: z.object({
      id: z.string().describe('sub-3 (or 3); several, in the order to apply: "sub-1 sub-3"; or "all"'),
    }),
    // The approval prompt says that the merge runs the check, a command.
    label: (args) => (check ? `${args.id} (runs ${check} after each)` : args.id),
    execute: async (args, ctx) => {
      const touchedBy = (file: string, repo: string | undefined) => (repo ? writersOf(path.join(repo, file)) : []);
      return runMerge(worktrees, args.id, isRunning, { signal: ctx.signal, touchedBy, running: 'merge it once it has finished' });
    },
  });
  return [merge];
}

/** The user's `/agents merge <id…|all>` and `/agents discard <id>`: the same paths as the parent's tool, worded alike. */
export async function worktreeCommand(
  worktrees: WorktreeJobs | undefined,
  verb: 'merge' | 'discard',
  target: string,
  isRunning: (jobId: string) => boolean,
  options: { signal?: AbortSignal } = {},
): Promise<{ content: string; isError: boolean }> {
  if (!worktrees) return { content: 'isolated sub-agents are not available in this session', isError: true };
  if (verb === 'merge') {
    return runMerge(worktrees, target, isRunning, { ...options, running: 'stop it or wait for it, then merge it' });
  }
  const id = normalizeJobId(target);
  if (isRunning(id)) return { content: `${id} is still running; stop it or wait for it, then discard it`, isError: true };
  try {
    await worktrees.discard(id);
    return { content: `Discarded ${id}: its worktree and branch are removed.`, isError: false };
  } catch (error) {
    if (error instanceof WorktreeError) return { content: error.message, isError: true };
    throw error;
  }
}

/**
 * One id without a merge check: the branch is merged straight into the checkout, as ever.
 * Several ids, `all`, or any merge with a check: the merge queue (merge-queue.ts). The list is
 * judged whole first (merge-targets.ts): nothing is done for a list with any bad id in it.
 */
async function runMerge(
  worktrees: WorktreeJobs,
  target: string,
  isRunning: (jobId: string) => boolean,
  options: { signal?: AbortSignal; touchedBy?: (file: string, repo: string | undefined) => string[]; running: string },
): Promise<{ content: string; isError: boolean }> {
  const words = target.split(/[\s,]+/).filter((word) => word !== '');
  // One id keeps its old answers, word for word: still running, or which jobs have a worktree.
  if (words.length === 1 && words[0] !== 'all') {
    const id = normalizeJobId(words[0]!);
    if (isRunning(id)) return { content: `${id} is still running; ${options.running}`, isError: true };
    if (isJobId(id) && !worktrees.get(id)) return { content: worktrees.missing(id), isError: true };
  }
  const targets = mergeTargets(target, { withWorktree: worktrees.list().map((r) => r.jobId), isRunning });
  if (!targets.ok) return { content: targets.message, isError: true };
  const touched = (repo: string | undefined) => (file: string) => options.touchedBy?.(file, repo) ?? [];
  try {
    const [first] = targets.ids;
    const repo = worktrees.get(first!)?.repo;
    if (targets.ids.length === 1 && !worktrees.check) return describeMerge(first!, await worktrees.merge(first!, touched(repo)));
    const report = await worktrees.mergeAll(targets.ids, {
      ...(options.signal ? { signal: options.signal } : {}),
      touchedBy: touched(repo),
    });
    return describeQueue(targets.ids, report, worktrees.check?.command);
  } catch (error) {
    if (error instanceof WorktreeError) return { content: error.message, isError: true };
    throw error;
  }
}
