import type { ToolGate } from '../loop/tool-runner.js';
import { totalTokens } from '../loop/limits.js';
import type { Message, StreamFn, Usage } from '../providers/types.js';
import type { AnyTool, Workspace } from '../tools/define.js';
import type { OutputLimiter, ToolRegistry } from '../tools/registry.js';
import { agentTools } from './agent-tools.js';
import { type ChildTranscript, createChildRunner } from './child-run.js';
import type { ChildRunner } from './job-types.js';
import type { AgentDefinition } from './definitions.js';
import { type ForkSnapshot, type JobEvent, JobManager, type Timers } from './job-manager.js';
import type { SessionLedger } from './ledger.js';
import { FileWrites } from './file-writes.js';
import type { WorktreeJobs } from './worktree-jobs.js';
import { describeChanges } from './worktree.js';
import { worktreeTools } from './worktree-tools.js';

/** Sub-agent settings of a session (flags over settings over defaults, already merged). */
export interface AgentLimitsConfig {
  maxConcurrent?: number;
  pollTimeoutMs?: number;
  maxSessionTokens?: number;
  maxSessionCostUsd?: number;
  maxTurns?: number;
  maxTotalTokens?: number;
  maxDurationMs?: number;
}

export interface SessionAgentsOptions {
  definitions: Map<string, AgentDefinition>;
  /** The parent's tools without the agent tools: what children are filtered from. */
  parentTools: ToolRegistry;
  stream: StreamFn;
  model: string;
  maxTokens: number;
  workspace: Workspace;
  config: AgentLimitsConfig;
  ledger: SessionLedger;
  emit: (event: JobEvent) => void;
  /** The gate a job's tool calls pass: labelled with its id, within its definition's `permissions`. */
  gateFor?: (jobId: string, definition: AgentDefinition, workspace: Workspace) => ToolGate;
  limitOutput?: OutputLimiter;
  transcriptFor?: (jobId: string, definition: AgentDefinition, task: string) => ChildTranscript | undefined;
  forkSnapshot?: () => ForkSnapshot;
  /** Dollars for some usage at the session's prices; undefined when the price is unknown. */
  costOf?: (usage: Usage) => number | undefined;
  /** Environment facts and project instructions for typed children's system prompts. */
  sharedContext?: string;
  /** Where job numbering starts (after a resumed session's earlier jobs). */
  firstJobNumber?: number;
  // Round two (isolation).
  /** The session's job worktrees; without them, isolation "worktree" is refused. */
  worktrees?: WorktreeJobs;
  now?: () => number;
  timers?: Timers;
}

/** A session's sub-agent machinery: the manager, its tools, and the budget's notes to the model. */
export interface SessionAgents {
  manager: JobManager;
  tools: AnyTool[];
  /** The isolated jobs' worktrees (`/agents merge|discard <id>`); absent where isolation is off. */
  worktrees?: WorktreeJobs;
  /** Messages for the next step boundary: budget notes, then the completion notice. */
  boundaryMessages(): Message[];
}

export function createSessionAgents(options: SessionAgentsOptions): SessionAgents {
  const { config, ledger } = options;
  const budget = config.maxSessionTokens;
  const costBudget = config.maxSessionCostUsd;
  const notes: string[] = [];
  let budgetSpent = false;

  const sessionCost = () => options.costOf?.(ledger.totals());
  /** Which session budget is spent, if one is. */
  const spentBudget = (): { limit: 'tokens' | 'costUsd'; budget: number; used: number; message: string } | undefined => {
    const tokens = ledger.totalTokens();
    if (budget !== undefined && tokens >= budget) {
      const message =
        `the session budget of ${budget} tokens is spent (${tokens} used, sub-agents included): no new sub-agents. ` +
        'Raise it with --max-budget-tokens or agents.maxSessionTokens in settings.';
      return { limit: 'tokens', budget, used: tokens, message };
    }
    const cost = sessionCost();
    if (costBudget !== undefined && cost !== undefined && cost >= costBudget) {
      const message =
        `the session budget of ${dollars(costBudget)} is spent (${dollars(cost)} used, sub-agents included): no new sub-agents. ` +
        'Raise it with --max-budget-usd or agents.maxSessionCostUsd in settings.';
      return { limit: 'costUsd', budget: costBudget, used: cost, message };
    }
    return undefined;
  };
  const spent = () => spentBudget()?.message;

  const worktrees = options.worktrees;
  const writes = new FileWrites();
  const running = (jobId: string) => manager.active().some((job) => job.id === jobId);
  const isolated = (jobId: string, definition: string) =>
    manager.get(jobId).isolation === 'worktree' || options.definitions.get(definition)?.isolation === 'worktree';
  const isolate = (run: ChildRunner): ChildRunner => (worktrees ? worktrees.runner(run, isolated) : run);
  const manager: JobManager = new JobManager({
    maxConcurrent: config.maxConcurrent,
    pollTimeoutMs: config.pollTimeoutMs,
    definitions: () => [...options.definitions.keys()],
    emit: options.emit,
    now: options.now,
    timers: options.timers,
    admission: spent,
    onUsage: (jobId, usage) => {
      ledger.addJob(jobId, usage);
      enforceJobBudget(jobId);
      enforceBudget();
    },
    run: isolate(
      createChildRunner({
        definitions: () => options.definitions,
        parentTools: options.parentTools,
        stream: options.stream,
        model: options.model,
        maxTokens: options.maxTokens,
        workspace: options.workspace,
        limits: { maxTurns: config.maxTurns, maxTotalTokens: config.maxTotalTokens, maxDuration: config.maxDurationMs },
        gateFor: options.gateFor,
        limitOutput: options.limitOutput,
        transcriptFor:
          options.transcriptFor && ((request, definition) => options.transcriptFor!(request.id, definition, request.task)),
        sharedContext: options.sharedContext,
        trackWrites: (jobId, tools) => writes.track(jobId, tools, running),
      }),
    ),
    forkSnapshot: options.forkSnapshot,
    firstNumber: options.firstJobNumber,
  });

  /** A job past its own cap ends failed, with the cap and the figure named. */
  function enforceJobBudget(jobId: string): void {
    const job = manager.get(jobId);
    const caps = job.budget;
    if (!caps) return;
    const tokens = totalTokens(job.usage);
    if (caps.maxTokens !== undefined && tokens >= caps.maxTokens) {
      manager.fail(jobId, `budget: tokens reached (${tokens} of ${caps.maxTokens})`);
      return;
    }
    const cost = options.costOf?.(job.usage);
    if (caps.maxCostUsd !== undefined && cost !== undefined && cost >= caps.maxCostUsd) {
      manager.fail(jobId, `budget: cost reached (${dollars(cost)} of ${dollars(caps.maxCostUsd)})`);
    }
  }

  /** Past the session's budget: stop every running job, and say so to the user and the model. */
  function enforceBudget(): void {
    if (budgetSpent) return;
    const reached = spentBudget();
    if (!reached) return;
    budgetSpent = true;
    const stopped = manager.active().map((job) => job.id);
    manager.stopAll();
    notes.push(
      `${reached.limit === 'tokens' ? 'Token' : 'Cost'} budget reached: ${reached.message}${stopped.length ? ` Stopped ${stopped.join(', ')}.` : ''}`,
    );
    options.emit({ type: 'budget_reached', limit: reached.limit, budget: reached.budget, used: reached.used, stopped });
  }

  const summaries = [...options.definitions.values()].map((d) => ({ name: d.name, description: d.description }));
  return {
    manager,
    worktrees,
    tools: [
      ...agentTools(manager, summaries),
      ...(worktrees ? worktreeTools(worktrees, running, (file) => writes.writersOf(file)) : []),
    ],
    boundaryMessages: () => {
      // The parent's own usage counts too; it is settled by the time a step boundary comes.
      enforceBudget();
      const out: Message[] = notes.splice(0).map((text) => ({ role: 'user', content: [{ type: 'text', text }] }));
      return [...out, ...manager.boundaryMessages().map((message) => withBranches(message, worktrees))];
    },
  };
}

/** An isolated job's completion notice ends with its branch and what it changed. */
function withBranches(message: Message, worktrees: WorktreeJobs | undefined): Message {
  const lines = (message.noticeFor ?? []).flatMap((id) => {
    const record = worktrees?.get(id);
    return record?.changes ? [`${id}: ${describeChanges(record, record.changes)}`] : [];
  });
  if (lines.length === 0) return message;
  return { ...message, content: [...message.content, { type: 'text', text: lines.join('\n') }] };
}

function dollars(amount: number): string {
  return `$${amount.toFixed(amount < 1 ? 4 : 2)}`;
}
