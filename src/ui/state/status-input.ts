/**
 * The JSON a status line command reads on stdin. The session's is Claude Code's (`hook_event_name:
 * "Status"`, model, workspace, cost, …) so its scripts run unchanged, with outrider's own facts
 * under `outrider`; a sub-agent row's is the job's facts (`hook_event_name: "SubagentStatus"`).
 */
import type { Job, PermissionMode } from '../../core/index.js';
import { type JobView, describeActivity } from './jobs.js';
import type { StatusTotals } from './status-events.js';

/** The session as the app knows it when its line is asked for. */
export interface SessionStatusFacts {
  sessionId: string;
  transcriptPath?: string;
  /** The project's root. */
  cwd: string;
  model: string;
  /** outrider's version. */
  version: string;
  mode: PermissionMode;
  effort?: string;
  /** Dollars so far, sub-agents included; undefined when the price is unknown. */
  cost?: number;
  /** When the app started, and now, on its clock. */
  startedAt: number;
  now: number;
  totals: StatusTotals;
  jobs: readonly Job[];
  contextTokens?: number;
  contextWindow?: number;
}

/** The main status line's input, in Claude Code's shape. */
export function sessionStatusInput(facts: SessionStatusFacts): Record<string, unknown> {
  const agents = facts.jobs.filter((job) => job.kind !== 'shell');
  const count = (...states: Job['state'][]) => agents.filter((job) => states.includes(job.state)).length;
  return {
    hook_event_name: 'Status',
    session_id: facts.sessionId,
    transcript_path: facts.transcriptPath ?? null,
    cwd: facts.cwd,
    // outrider has no display names of its own: the id is the name.
    model: { id: facts.model, display_name: facts.model },
    workspace: { current_dir: facts.cwd, project_dir: facts.cwd },
    version: facts.version,
    output_style: { name: 'default' },
    cost: {
      total_cost_usd: facts.cost ?? 0,
      total_duration_ms: Math.max(0, facts.now - facts.startedAt),
      total_api_duration_ms: facts.totals.apiMs,
      total_lines_added: facts.totals.linesAdded,
      total_lines_removed: facts.totals.linesRemoved,
    },
    outrider: {
      mode: facts.mode,
      effort: facts.effort ?? null,
      // A price outrider does not know counts as 0 above; this says so.
      cost_known: facts.cost !== undefined,
      jobs: { running: count('running'), queued: count('queued'), done: count('done'), failed: count('error', 'aborted') },
      shells_running: facts.jobs.filter((job) => job.kind === 'shell' && job.state === 'running').length,
      context_tokens: facts.contextTokens ?? null,
      context_window: facts.contextWindow ?? null,
    },
  };
}

/** What a job's row knows beyond the job. */
export interface JobStatusFacts {
  sessionId: string;
  cwd: string;
  now: number;
  /** The job's cost so far; undefined when the price is unknown. */
  cost?: number;
  /** An isolated job's git worktree. */
  worktree?: { path: string; branch: string };
}

/** A sub-agent row's input: the job's facts, flat, with the session's id and folder. */
export function jobStatusInput(view: JobView, facts: JobStatusFacts): Record<string, unknown> {
  const { job } = view;
  const since = job.state === 'queued' ? job.createdAt : (job.startedAt ?? job.createdAt);
  return {
    hook_event_name: 'SubagentStatus',
    session_id: facts.sessionId,
    cwd: facts.cwd,
    id: job.id,
    definition: job.definition,
    task: job.task,
    state: job.state,
    mode: job.mode,
    depth: job.depth ?? 1,
    owner: job.owner ?? null,
    activity: describeActivity(view.activity, job.state, facts.cwd),
    turns: job.turns,
    tool_calls: job.toolCalls,
    usage: {
      input_tokens: job.usage.input,
      output_tokens: job.usage.output,
      cache_read_input_tokens: job.usage.cacheRead,
      cache_creation_input_tokens: job.usage.cacheWrite,
    },
    cost_usd: facts.cost ?? null,
    model: job.model ?? null,
    effort: job.effort ?? null,
    elapsed_ms: Math.max(0, (job.endedAt ?? facts.now) - since),
    worktree: facts.worktree ? { path: facts.worktree.path, branch: facts.worktree.branch } : null,
  };
}
