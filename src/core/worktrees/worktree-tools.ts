import path from 'node:path';
import * as z from 'zod';
import { type AnyTool, defineTool } from '../tools/define.js';
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

/** `agent_merge`: the parent applies an isolated job's branch to the user's checkout; gated like a write. */
export function worktreeTools(
  worktrees: WorktreeJobs,
  isRunning: (jobId: string) => boolean,
  writersOf: (absoluteFile: string) => string[] = () => [],
): AnyTool[] {
  const merge = defineTool({
    name: 'agent_merge',
    description:
      'Apply the changes of a finished sub-agent that ran with isolation "worktree" to the checkout, as uncommitted ' +
      'changes. When a file conflicts nothing is changed and the conflicting files are listed.',
    kind: 'mutating',
    schema: z.object({ id: z.string().describe('sub-agent id, e.g. sub-3 (or 3)') }),
    label: (args) => args.id,
    execute: async (args) => {
      const id = /^\d+$/.test(args.id.trim()) ? `sub-${args.id.trim()}` : args.id.trim();
      if (isRunning(id)) return { content: `${id} is still running; merge it once it has finished`, isError: true };
      try {
        const repo = worktrees.get(id)?.repo;
        return describeMerge(id, await worktrees.merge(id, (file) => (repo ? writersOf(path.join(repo, file)) : [])));
      } catch (error) {
        if (error instanceof WorktreeError) return { content: error.message, isError: true };
        throw error;
      }
    },
  });
  return [merge];
}

/** The user's `/agents merge <id>` and `/agents discard <id>`: the same paths as the parent's tool, worded alike. */
export async function worktreeCommand(
  worktrees: WorktreeJobs | undefined,
  verb: 'merge' | 'discard',
  target: string,
  isRunning: (jobId: string) => boolean,
): Promise<{ content: string; isError: boolean }> {
  const id = /^\d+$/.test(target.trim()) ? `sub-${target.trim()}` : target.trim();
  if (!worktrees) return { content: 'isolated sub-agents are not available in this session', isError: true };
  if (isRunning(id)) return { content: `${id} is still running; stop it or wait for it, then ${verb} it`, isError: true };
  try {
    if (verb === 'merge') return describeMerge(id, await worktrees.merge(id));
    await worktrees.discard(id);
    return { content: `Discarded ${id}: its worktree and branch are removed.`, isError: false };
  } catch (error) {
    if (error instanceof WorktreeError) return { content: error.message, isError: true };
    throw error;
  }
}
