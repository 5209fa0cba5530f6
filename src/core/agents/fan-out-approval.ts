import type { Job } from '../jobs/job-types.js';
import type { ApprovalAnswer, ApprovalRequest, PermissionMode } from '../permissions/types.js';
import { formatTokens } from '../platform/text.js';
import { type ToolUseBlock, type Usage, usageTokens } from '../providers/types.js';

/** `agents.approve`: never ask, or ask once a parent turn would start more than `limit` sub-agents. */
export type FanOutPolicy = { kind: 'never' } | { kind: 'over'; limit: number };

/** Sub-agents one turn may start without asking, unless `agents.approve` says otherwise (not in yolo). */
export const DEFAULT_FAN_OUT_LIMIT = 3;

/** The policy in force: the setting's, else `never` in yolo mode and `over:3` in the others. */
export function fanOutPolicy(setting: string | undefined, mode: PermissionMode): FanOutPolicy {
  const over = setting === undefined ? undefined : /^over:(\d+)$/.exec(setting);
  if (over) return { kind: 'over', limit: Number(over[1]) };
  if (setting === 'never' || (setting === undefined && mode === 'yolo')) return { kind: 'never' };
  return { kind: 'over', limit: DEFAULT_FAN_OUT_LIMIT };
}

export interface FanOutOptions {
  /** `agents.approve` as the settings give it; undefined: the default for the mode. */
  setting?: string;
  /** The session's permission mode now (the user may change it mid-session). */
  mode: () => PermissionMode;
  /** Asks the user (the session's approver); absent when no one can be asked (headless). */
  ask?: (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;
  /** What `count` sub-agents would likely use, for the question. */
  estimate: (count: number) => string;
  /** Tells the user that starts were refused because no one could be asked (once a turn). */
  warn?: (text: string) => void;
}

/**
 * Fan-out the user agreed to. The parent's agent_start calls of one turn are counted; past
 * the policy's limit, the user is asked once, with the count and an estimate, and the starts
 * beyond the limit wait for that one answer. Allowed: they start (a later start past that
 * count asks again; "always" stops asking for the session). Denied, or no one to ask: every
 * start of the turn beyond the limit is refused with an error result; those within it run.
 */
export class FanOutApproval {
  /** The parent's starts admitted this turn. */
  private started = 0;
  /** agent_start calls of the current tool batch not yet admitted: the rest of this fan-out. */
  private batchLeft = 0;
  /** How many starts this turn the user allowed. */
  private approvedUpTo = 0;
  private declined = false;
  private refusedTold = false;
  private always = false;
  private asking: { upTo: number; answer: Promise<boolean> } | undefined;

  constructor(private readonly options: FanOutOptions) {}

  /** A parent turn starts: nothing started in it yet. */
  newTurn(): void {
    this.started = 0;
    this.batchLeft = 0;
    this.approvedUpTo = 0;
    this.declined = false;
    this.refusedTold = false;
    this.asking = undefined;
  }

  /** A tool batch of the parent, before any of it runs: how many starts it holds. */
  batch(calls: readonly ToolUseBlock[]): void {
    this.batchLeft = calls.filter((call) => call.name === 'agent_start').length;
  }

  /** Admits one start of the parent's; the error text when it may not start. */
  async admit(signal: AbortSignal): Promise<string | undefined> {
    this.batchLeft = Math.max(0, this.batchLeft - 1);
    const policy = fanOutPolicy(this.options.setting, this.options.mode());
    this.started += 1;
    if (policy.kind === 'never' || this.always) return undefined;
    const position = this.started;
    if (position <= Math.max(policy.limit, this.approvedUpTo)) return undefined;
    const refused = (text: string) => {
      this.started -= 1;
      return text;
    };
    const setting = `agents.approve is "over:${policy.limit}"`;
    if (!this.options.ask) {
      // No one to ask (headless): the user hears of it once a turn, the model with every refused start.
      if (!this.refusedTold) {
        this.options.warn?.(
          `refused sub-agent starts beyond ${policy.limit} in one turn (${setting}, and no one can be asked here): set agents.approve to "never" or a higher "over:N" to allow more`,
        );
      }
      this.refusedTold = true;
      return refused(
        `Not started: starting more than ${policy.limit} sub-agents in one turn needs the user's approval (${setting}), and no one can be asked in this run. ` +
          `Start at most ${policy.limit} per turn, or the user can set agents.approve to "never" or a higher "over:N" in settings.json (or run with --yolo).`,
      );
    }
    if (!this.declined && (!this.asking || this.asking.upTo < position)) {
      const total = position + this.batchLeft;
      this.asking = { upTo: total, answer: this.ask(total, policy.limit, setting, signal) };
    }
    if (!this.declined && (await this.asking!.answer)) return undefined;
    return refused(
      `Not started: the user declined starting more than ${policy.limit} sub-agents in this turn (${setting}). ` +
        'Go on with the sub-agents already started, do this part yourself, or ask the user.',
    );
  }

  /** A start admitted above did not happen (the manager refused it): it no longer counts. */
  release(): void {
    this.started = Math.max(0, this.started - 1);
  }

  private async ask(total: number, limit: number, setting: string, signal: AbortSignal): Promise<boolean> {
    const request: ApprovalRequest = {
      toolName: 'agent_start',
      label: `${total} sub-agents this turn`,
      args: { count: total, limit },
      // The estimate first: a narrow prompt cuts the line's end.
      reason: `estimate: ${this.options.estimate(total)} · ${setting}`,
    };
    let answer: ApprovalAnswer;
    try {
      answer = await this.options.ask!(request, signal);
    } catch {
      answer = 'deny';
    }
    if (answer === 'deny') {
      this.declined = true;
      return false;
    }
    if (answer === 'allow-always') this.always = true;
    this.approvedUpTo = Math.max(this.approvedUpTo, total);
    return true;
  }
}

/**
 * `~3 × 42k tokens ($0.12) = ~126k tokens ($0.36), from 4 finished sub-agents`, or, before any
 * finished, the per-job cap: `at most 3 × 1M tokens (agents.maxTotalTokens)`.
 */
export function fanOutEstimate(
  count: number,
  jobs: readonly Job[],
  options: { costOf?: (usage: Usage, model?: string) => number | undefined; maxTotalTokens?: number },
): string {
  const finished = jobs.filter((job) => job.kind !== 'shell' && (job.state === 'done' || job.state === 'error'));
  if (finished.length === 0) {
    const cap = options.maxTotalTokens;
    return cap === undefined
      ? 'no sub-agent has finished yet to judge by'
      : `at most ${count} × ${formatTokens(cap)} tokens (agents.maxTotalTokens); none has finished yet to average`;
  }
  const tokens = finished.reduce((sum, job) => sum + usageTokens(job.usage), 0) / finished.length;
  const costs = finished.map((job) => options.costOf?.(job.usage, job.model));
  const known = costs.every((cost) => cost !== undefined);
  const cost = known ? (costs as number[]).reduce((sum, c) => sum + c, 0) / finished.length : undefined;
  const dollars = (n: number) => (cost === undefined ? '' : ` ($${n.toFixed(2)})`);
  const each = `${formatTokens(Math.round(tokens))} tokens${dollars(cost ?? 0)}`;
  const all = `${formatTokens(Math.round(tokens * count))} tokens${dollars((cost ?? 0) * count)}`;
  return `~${count} × ${each} = ~${all}, from ${finished.length} finished sub-agent${finished.length === 1 ? '' : 's'}`;
}
