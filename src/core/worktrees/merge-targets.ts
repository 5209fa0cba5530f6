/**
 * The jobs a merge names, read and judged before anything is done: `sub-1 sub-3` (that order),
 * `1, 3`, or `all` (every job with a worktree, by number). A list that names anything other than
 * finished jobs with a worktree, once each, is refused whole, every problem named.
 */
import { compareJobIds, normalizeJobId } from '../jobs/job-ids.js';
import { safeText } from '../platform/safe-text.js';

/** The most jobs one merge may name. */
export const MAX_MERGE_JOBS = 64;

/** What the merge may use: the jobs that have a worktree, and which jobs still run. */
export interface MergeTargetFacts {
  withWorktree: readonly string[];
  isRunning: (jobId: string) => boolean;
}

/** The ids in merge order, or why the list is refused. */
export type MergeTargets = { ok: true; ids: string[] } | { ok: false; message: string };

const JOB_ID = /^[a-z]+-\d{1,9}(?:\.\d{1,9})*$/;

/** Whether `id` has the form of a job id (`sub-2`, `sub-2.1`, `sh-1`): nothing path-like gets further. */
export function isJobId(id: string): boolean {
  return JOB_ID.test(id);
}

/** Reads `text` (ids separated by spaces or commas, or `all`) against the session's jobs. */
export function mergeTargets(text: string, facts: MergeTargetFacts): MergeTargets {
  const words = text.split(/[\s,]+/).filter((word) => word !== '');
  if (words.length === 0) {
    return refuse(['name a job: an id such as sub-2, several in the order to apply them (sub-1 sub-3), or all']);
  }
  if (words.length > MAX_MERGE_JOBS) return refuse([`${words.length} ids named; one merge takes at most ${MAX_MERGE_JOBS}`]);
  const known = [...facts.withWorktree].sort(compareJobIds);
  if (words.includes('all')) {
    if (words.length > 1) return refuse(['"all" merges every job with a worktree; name either all or ids, not both']);
    if (known.length === 0)
      return refuse(['no job has a worktree to merge (only jobs started with isolation "worktree" have one)']);
    const running = known.filter(facts.isRunning);
    if (running.length) {
      const ended = known.filter((id) => !facts.isRunning(id));
      return refuse([
        `${running.join(', ')} ${running.length === 1 ? 'is' : 'are'} still running; wait for ${running.length === 1 ? 'it' : 'them'}` +
          (ended.length ? `, or name the finished ones (${ended.join(' ')})` : ''),
      ]);
    }
    return { ok: true, ids: known };
  }
  const problems: string[] = [];
  const seen = new Set<string>();
  const ids: string[] = [];
  for (const word of words) {
    const id = normalizeJobId(word);
    if (!JOB_ID.test(id)) {
      problems.push(`${shown(word)} is not a job id (ids look like sub-2, or 2)`);
    } else if (seen.has(id)) {
      if (!problems.some((p) => p.startsWith(`${id} is named`))) problems.push(`${id} is named more than once`);
    } else if (!known.includes(id)) {
      problems.push(`${id} has no worktree${known.length ? ` (jobs with one: ${known.join(', ')})` : ''}`);
    } else if (facts.isRunning(id)) {
      problems.push(`${id} is still running; merge it once it has finished`);
    }
    if (JOB_ID.test(id) && !seen.has(id)) ids.push(id);
    seen.add(id);
  }
  return problems.length ? refuse(problems) : { ok: true, ids };
}

function refuse(problems: string[]): MergeTargets {
  if (problems.length === 1) return { ok: false, message: `Nothing was merged: ${problems[0]}.` };
  return { ok: false, message: ['Nothing was merged:', ...problems.map((p) => `- ${p}`)].join('\n') };
}

/** A word from the model or the user, made visible and short for the message. */
function shown(word: string): string {
  const cut = word.length > 40 ? `${word.slice(0, 39)}…` : word;
  return `"${safeText(cut)}"`;
}
