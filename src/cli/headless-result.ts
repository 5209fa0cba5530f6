/**
 * A headless run's result: the turns one result covers, what they came to (text, usage, cost,
 * each job), and `--output-format json`'s object for it.
 */
import {
  addUsage,
  emptyUsage,
  hookStopText,
  type Job,
  limitHint,
  type LoopResult,
  messageText,
  oneLine,
  type OpenedSession,
  type PermissionDenial,
  type StopCause,
} from '../core/index.js';
import { modelUsageOf, resultSubtype } from './stream-json-messages.js';
import type { TurnGroup } from './stream-json.js';

/** The turns one result covers. */
export interface Group {
  startedAt: number;
  cause: StopCause;
  results: LoopResult[];
  turns: number;
}

export const newGroup = (): Group => ({ startedAt: Date.now(), cause: { kind: 'completed' }, results: [], turns: 0 });

export function add(group: Group, result: LoopResult): void {
  group.results.push(result);
  group.cause = result.cause;
  group.turns += result.turns;
}

export function summarize(group: Group, opened: OpenedSession, denials: PermissionDenial[]): TurnGroup {
  const messages = group.results.flatMap((r) => r.newMessages);
  const lastAssistant = messages.reverse().find((m) => m.role === 'assistant' && messageText(m));
  const failed = group.cause.kind !== 'completed';
  return {
    cause: group.cause,
    text: lastAssistant ? messageText(lastAssistant) : '',
    ...(failed ? { error: describeCause(group.cause) } : {}),
    turns: group.turns,
    durationMs: Date.now() - group.startedAt,
    usage: group.results.reduce((sum, r) => addUsage(sum, r.usage), emptyUsage()),
    totals: opened.totals(),
    costUsd: opened.cost(),
    models: opened.usageReport().models.map((row) => ({ ...row, ...opened.limitsOf(row.model) })),
    jobs: opened.jobs().map((job) => jobSummary(job, opened)),
    denials,
  };
}

/** `--output-format json` (and the last line of events-json): outrider's own result object. */
export function jsonResult(group: TurnGroup, sessionId: string, turns: number) {
  const failed = group.cause.kind !== 'completed';
  return {
    type: 'result',
    subtype: resultSubtype(group.cause),
    is_error: failed,
    result: group.text,
    error: group.error,
    session_id: sessionId,
    num_turns: turns,
    duration_ms: group.durationMs,
    usage: group.totals,
    total_cost_usd: group.costUsd,
    // By model, sub-agents' included, in Claude Code's shape (as stream-json's result has it).
    ...(group.models ? { modelUsage: modelUsageOf(group.models) } : {}),
    jobs: group.jobs,
  };
}

/** One job in the headless JSON result. */
function jobSummary(job: Job, opened: OpenedSession) {
  const cost = opened.costOf(job.usage, job.id);
  const model = job.model ?? opened.model;
  return {
    id: job.id,
    definition: job.definition,
    ...(job.model ? { model: job.model } : {}),
    status: job.state,
    ...(job.interrupted ? { interrupted: true } : {}),
    ...(job.error !== undefined ? { error: job.error } : {}),
    ...(job.worker !== undefined ? { worker: job.worker } : {}),
    task: oneLine(job.task, 80),
    turns: job.turns,
    tool_calls: job.toolCalls,
    tokens: job.usage,
    cost_usd: cost,
    // Its usage on its model, in the shape of the result's own `modelUsage`.
    modelUsage: modelUsageOf([{ model, usage: job.usage, cost, ...opened.limitsOf(model) }]),
    duration_ms: job.startedAt !== undefined && job.endedAt !== undefined ? job.endedAt - job.startedAt : undefined,
  };
}

function describeCause(cause: StopCause): string {
  switch (cause.kind) {
    case 'completed':
      return 'completed';
    case 'aborted':
      return 'interrupted';
    case 'limit':
      return `stopped: ${cause.detail}${limitHint(cause.limit)}`;
    case 'error':
      return cause.message;
    case 'hook':
      return hookStopText(cause);
  }
}
