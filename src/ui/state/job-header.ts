import {
  describeChanges,
  formatDuration,
  formatTokens,
  isEnded,
  type Job,
  oneLine,
  safeText,
  totalTokens,
  type WorktreeChanges,
  type WorktreeRecord,
} from '../../core/index.js';
import { cutLine } from '../format.js';
import { cells, wrapCells } from '../text-cells.js';
import { deliveryText, elapsedOf, formatCost, jobStateLabel } from './job-status.js';
import { type JobView, describeActivity } from './jobs.js';

/** One line of the job view's header, and how it is coloured. */
export interface HeaderLine {
  text: string;
  color?: string;
  dim?: boolean;
}

/** Lines of the task the header shows at most. */
export const HEADER_TASK_LINES = 2;

/** A share of a cap from which its figure is shown in yellow (the budget's own warning mark). */
const NEAR = 0.8;

/**
 * `running 1m20s · claude-sonnet-5 · effort high`: the state, the time, the model it runs on.
 */
export function jobTitle(job: Job, now: number): string {
  const model = job.model ? ` · ${job.model}${job.effort ? ` · effort ${job.effort}` : ''}` : '';
  return `${jobStateLabel(job)} ${elapsedOf(job, now)}${model}`;
}

/**
 * `Used: 3 of 10 turns · 5 of 40 tool calls · 12k of 1.0M tokens · $0.02 of $0.50 · 1m20s of 5m00s`:
 * what the job has used, each figure against its cap when it has one (the manager's counters
 * and the caps it settled), on as many lines as `width` needs. A dollar figure needs a price:
 * without one it reads `$?`.
 */
export function usageLines(job: Job, options: { now: number; cost?: number; width: number }): HeaderLine[] {
  const caps = job.budget ?? {};
  const cost = formatCost(options.cost);
  const of = (used: string, cap: string | undefined, unit: string) => `${used}${cap === undefined ? '' : ` of ${cap}`} ${unit}`;
  const since = job.startedAt ?? job.createdAt;
  const elapsed = (job.endedAt ?? options.now) - since;
  const parts = [
    of(String(job.turns), caps.maxTurns?.toString(), job.turns === 1 && caps.maxTurns === undefined ? 'turn' : 'turns'),
    of(
      String(job.toolCalls),
      caps.maxToolCalls?.toString(),
      job.toolCalls === 1 && caps.maxToolCalls === undefined ? 'tool call' : 'tool calls',
    ),
    of(formatTokens(totalTokens(job.usage)), caps.maxTokens === undefined ? undefined : formatTokens(caps.maxTokens), 'tokens'),
    ...(cost !== undefined || caps.maxCostUsd !== undefined
      ? [`${cost ?? '$?'}${caps.maxCostUsd === undefined ? '' : ` of $${caps.maxCostUsd.toFixed(2)}`}`]
      : []),
    `${formatDuration(job.state === 'queued' ? 0 : elapsed)}${caps.maxDurationMs === undefined ? '' : ` of ${formatDuration(caps.maxDurationMs)}`}`,
  ];
  const near = (job.budgetUsed ?? 0) >= NEAR && !isEnded(job.state);
  // Figures are not cut: on a narrow screen they go on under the first.
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines.at(-1);
    if (last !== undefined && cells(`${last} · ${part}`) <= options.width) lines[lines.length - 1] = `${last} · ${part}`;
    else lines.push(last === undefined ? `Used: ${part}` : `      ${part}`);
  }
  return lines.map((text) => ({ text, ...(near ? { color: 'yellow' } : {}) }));
}

/**
 * `branch outrider/…/sub-1 · 2 files changed (+5 −1): a.ts, b.ts`: what an isolated job's branch
 * changes (a running job's worktree as it stands, once counted); `branch` as it is shown.
 */
export function worktreeText(
  record: WorktreeRecord,
  changes: WorktreeChanges | undefined,
  job: Pick<Job, 'state'>,
  branch: string,
  /** Why they could not be counted now, when they could not. */
  error?: string,
): string {
  const counted = changes ?? record.changes;
  const ended = isEnded(job.state);
  if (!counted && error) return `branch ${branch} · its changes could not be counted: ${oneLine(error, 200)}`;
  if (!counted) return `branch ${branch} · ${ended ? 'no changes recorded' : 'counting its changes…'}`;
  return `${describeChanges(record, counted).split(record.branch).join(branch)}${ended ? '' : ' so far'}`;
}

/** The header under the title: task, usage against caps, what it does now (or its error), messages, worktree. */
export function jobHeaderLines(
  view: JobView,
  options: {
    now: number;
    width: number;
    cost?: number;
    /** Its worktree's line (worktreeText), for an isolated job. */
    worktree?: string;
    root?: string;
    /** `1 message from you waiting …`, as /agents words it. */
    messages?: string;
  },
): HeaderLine[] {
  const { job } = view;
  const width = Math.max(1, options.width);
  const lines: HeaderLine[] = [];
  // The task and the error are the model's words: control characters are shown, not sent to the terminal.
  const task = wrapCells(`Task: ${safeText(oneLine(job.task, 2000))}`, width);
  lines.push(
    ...task.slice(0, HEADER_TASK_LINES).map((text, i) => ({
      text: i === HEADER_TASK_LINES - 1 && task.length > HEADER_TASK_LINES ? cutLine(`${text} …`, width) : text,
    })),
  );
  lines.push(...usageLines(job, { ...options, width }));
  if (!isEnded(job.state)) lines.push({ text: `Now: ${oneLine(describeActivity(view.activity, job.state, options.root))}` });
  if (job.error) lines.push({ text: `Error: ${safeText(oneLine(job.error))}`, color: 'red' });
  const delivery = isEnded(job.state) ? deliveryText(view) : undefined;
  if (delivery) lines.push({ text: `Parent: ${delivery}`, dim: true });
  if (options.messages) lines.push({ text: `Messages: ${options.messages}`, ...(view.unread ? { color: 'cyan' } : {}) });
  if (options.worktree) lines.push({ text: `Worktree: ${options.worktree}`, color: 'magenta' });
  return lines.map((line) => ({ ...line, text: cutLine(line.text, width) }));
}
