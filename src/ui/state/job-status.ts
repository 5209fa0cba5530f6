import {
  formatDuration,
  formatTokens,
  type Job,
  type JobState,
  oneLine,
  type SendResult,
  sentText,
  totalTokens,
} from '../../core/index.js';
import { plural } from '../format.js';

/** The one word the UI uses for each state: a stopped job is `stopped`, a failed one `failed`, everywhere. */
export function stateLabel(state: JobState): string {
  switch (state) {
    case 'queued':
    case 'running':
    case 'done':
      return state;
    case 'error':
      return 'failed';
    case 'aborted':
      return 'stopped';
    default: {
      const unhandled: never = state;
      return String(unhandled);
    }
  }
}

/** A job's state for people: `interrupted` when the session ended under it (a crash, a closed terminal). */
export function jobStateLabel(job: Pick<Job, 'state' | 'interrupted' | 'waitingFor'>): string {
  if (job.interrupted && (job.state === 'error' || job.state === 'aborted')) return 'interrupted';
  // Queued behind the jobs agent_start's `after` named, not behind a slot.
  if (job.state === 'queued' && job.waitingFor?.length) return 'waiting';
  return stateLabel(job.state);
}

/** Time since a job started (or was queued), frozen when it ended. */
export function elapsedOf(job: Job, now: number): string {
  const since = job.state === 'queued' ? job.createdAt : (job.startedAt ?? job.createdAt);
  return formatDuration((job.endedAt ?? now) - since);
}

/** `$0.04`, `$1.20`; undefined when the price is unknown. */
export function formatCost(cost: number | undefined): string | undefined {
  if (cost === undefined) return undefined;
  return cost > 0 && cost < 0.01 ? '<$0.01' : `$${cost.toFixed(2)}`;
}

/** `1m20s`, `12 tools`, `18k tok`, `$0.04`: a job's figures, most important first. */
export function figureParts(job: Job, now: number, cost?: number): string[] {
  // A shell has no model: its time is its only figure.
  if (job.kind === 'shell') return [elapsedOf(job, now)];
  const price = formatCost(cost);
  return [
    elapsedOf(job, now),
    plural(job.toolCalls, 'tool'),
    `${formatTokens(totalTokens(job.usage))} tok`,
    ...(price ? [price] : []),
  ];
}

/** `running 1m20s · 12 tools · 18k tok`: a job's state and figures, as /agents heads a job. */
export function jobFigures(job: Job, now: number): string {
  if (job.kind === 'shell') return `${jobStateLabel(job)} ${elapsedOf(job, now)}${job.error ? ` · ${job.error}` : ''}`;
  const [elapsed, ...rest] = figureParts(job, now);
  return [`${jobStateLabel(job)} ${elapsed}`, ...rest].join(' · ');
}

/** How the parent model heard of an ended job, for /agents; undefined when unknown (an earlier run's job). */
export function deliveryText(view: { owed: boolean; delivery?: 'woke' | 'notice' | 'poll' }): string | undefined {
  if (view.delivery === 'woke') return 'woke the parent';
  if (view.delivery === 'notice') return 'told with a completion notice';
  if (view.delivery === 'poll') return 'read by the parent (agent_poll)';
  return view.owed ? 'not told yet' : undefined;
}

/** The transcript line when a job ends done or error. */
export function completionLine(job: Job): string {
  return job.state === 'done' ? `${job.id} finished: ${oneLine(job.task, 80)}` : `${job.id} failed: ${job.error ?? 'error'}`;
}

/**
 * The status segment: `subagents: 2 running (oldest 1m20s), 1 queued, 3 done`, and a short
 * form for narrow terminals (`2 running · 1 queued · 3 done`); shells are counted apart
 * (`shells: 1 running`), as they are no sub-agents. Empty when there are no jobs.
 */
export function statusSegment(
  jobs: readonly Pick<Job, 'state' | 'startedAt' | 'kind'>[],
  now: number,
): { text: string; short: string } {
  const agents = jobs.filter((j) => j.kind !== 'shell');
  const shells = jobs.filter((j) => j.kind === 'shell');
  const agentPart = countsOf(agents, now, true);
  const shellPart = countsOf(shells, now, false);
  return {
    text: [
      agentPart.length ? `subagents: ${agentPart.join(', ')}` : '',
      shellPart.length ? `shells: ${shellPart.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' · '),
    short: [countsOf(agents, now, false).join(' · '), shellPart.length ? `sh ${shellPart.join(' · ')}` : '']
      .filter(Boolean)
      .join(' · '),
  };
}

function countsOf(jobs: readonly Pick<Job, 'state' | 'startedAt'>[], now: number, oldest: boolean): string[] {
  if (jobs.length === 0) return [];
  const running = jobs.filter((j) => j.state === 'running');
  const counts: string[] = [];
  for (const state of ['running', 'queued', 'done', 'error', 'aborted'] as const) {
    const n = jobs.filter((j) => j.state === state).length;
    if (n) counts.push(`${n} ${stateLabel(state)}`);
  }
  if (!oldest || !running.length) return counts;
  const first = Math.min(...running.map((j) => j.startedAt ?? now));
  return [`${counts[0]} (oldest ${formatDuration(now - first)})`, ...counts.slice(1)];
}

/** `the running sub-agent`, `2 sub-agents and 1 shell`: what quitting would stop. */
export function runningJobsText(jobs: readonly Pick<Job, 'kind'>[]): string {
  const agents = jobs.filter((j) => j.kind !== 'shell').length;
  const shells = jobs.length - agents;
  return [agents ? plural(agents, 'sub-agent') : '', shells ? plural(shells, 'shell') : ''].filter(Boolean).join(' and ');
}

/**
 * What quitting does to the running jobs: `stops 2 sub-agents`, and of queue jobs, which go on
 * on their workers (a resumed session follows them again), `1 goes on on its worker`.
 */
export function quitEffects(jobs: readonly Pick<Job, 'kind' | 'remoteId'>[]): string {
  const remote = jobs.filter((j) => j.remoteId !== undefined).length;
  const local = jobs.filter((j) => j.remoteId === undefined);
  return [
    local.length ? `stops ${runningJobsText(local)}` : '',
    remote ? (remote === 1 ? '1 goes on on its worker' : `${remote} go on on their workers`) : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** What the user's message to a job did, in the words `agent_send` answers the model with, but for a resume (no agent_poll to call). */
export function userSentText(sent: SendResult): string {
  if (sent.kind !== 'resumed') return sentText(sent);
  return `Resumed ${sent.job.id} with your message (${stateLabel(sent.job.state)}); its new result is announced when it completes.`;
}
