import type { Job, JobKind } from './job-types.js';

/**
 * Job ids: `sub-N` for the parent's sub-agents, `sub-2.1` for a job that `sub-2` started (one
 * more segment per level), `sh-N` for background shells. Ordered as a tree: every job right
 * after its owner, sub-agents before shells.
 */

/** Most levels of nesting a session may allow (`agents.maxAgentDepth`). */
export const MAX_AGENT_DEPTH = 3;

/** What a job is, for jobs written before kinds existed (those are sub-agents). */
export function kindOf(job: Pick<Job, 'kind'>): JobKind {
  return job.kind ?? 'sub';
}

/** The id a user or model meant: `3` is `sub-3`, `2.1` is `sub-2.1`; anything else as written. */
export function normalizeJobId(input: string): string {
  const trimmed = input.trim();
  return /^\d+(\.\d+)*$/.test(trimmed) ? `sub-${trimmed}` : trimmed;
}

/** The id of the `n`th job that `owner` starts (`sub-2` → `sub-2.n`), or the parent's (`sub-n`). */
export function subJobId(owner: string | undefined, n: number): string {
  return owner ? `${owner}.${n}` : `sub-${n}`;
}

/** How many levels down a sub-agent id sits: `sub-2` is 1, `sub-2.1` is 2. */
export function depthOfId(id: string): number {
  return id.split('.').length;
}

/** True when `id` is a job in `ancestor`'s subtree (not `ancestor` itself). */
export function isDescendantId(id: string, ancestor: string): boolean {
  return id.startsWith(`${ancestor}.`);
}

/** Tree order: sub-agents by their number path (`sub-2`, `sub-2.1`, `sub-2.10`, `sub-3`), then shells by number. */
export function compareJobIds(a: string, b: string): number {
  const [kindA, pathA] = parts(a);
  const [kindB, pathB] = parts(b);
  if (kindA !== kindB) return kindA - kindB;
  for (let i = 0; i < Math.max(pathA.length, pathB.length); i += 1) {
    // A shorter path is the ancestor: it comes first.
    if (pathA[i] === undefined) return -1;
    if (pathB[i] === undefined) return 1;
    if (pathA[i] !== pathB[i]) return pathA[i]! - pathB[i]!;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

const KIND_RANK: Record<string, number> = { sub: 0, sh: 1 };

function parts(id: string): [number, number[]] {
  const match = /^([a-z]+)-(\d+(?:\.\d+)*)$/.exec(id);
  if (!match) return [Number.MAX_SAFE_INTEGER, []];
  return [KIND_RANK[match[1]!] ?? 2, match[2]!.split('.').map(Number)];
}
