import type { ToolGate } from '../loop/tool-runner.js';
import { totalTokens } from '../loop/limits.js';
import type { Message, StreamFn, Usage } from '../providers/types.js';
import type { AnyTool, Workspace } from '../tools/define.js';
import { MAX_AGENT_DEPTH, isDescendantId } from '../jobs/job-ids.js';
import { resolveModel } from './model-resolution.js';
import type { ProviderName } from '../providers/types.js';
import type { OutputLimiter, ToolRegistry } from '../tools/registry.js';
import { agentTools } from './agent-tools.js';
import { type ChildHooks, type ChildTranscript, createChildRunner } from './child-run.js';
import type { ChildRunner } from '../jobs/job-types.js';
import type { AgentDefinition } from './definitions.js';
import { type ForkSnapshot, type JobEvent, JobManager, type Timers } from '../jobs/job-manager.js';
import type { SessionLedger } from '../jobs/ledger.js';
import { FileWrites } from '../worktrees/file-writes.js';
import type { WorktreeJobs } from '../worktrees/worktree-jobs.js';
import { describeChanges } from '../worktrees/worktree.js';
import { worktreeTools } from '../worktrees/worktree-tools.js';

/** Sub-agent settings of a session (flags over settings over defaults, already merged). */
export interface AgentLimitsConfig {
  maxConcurrent?: number;
  pollTimeoutMs?: number;
  maxSessionTokens?: number;
  maxSessionCostUsd?: number;
  maxTurns?: number;
  maxTotalTokens?: number;
  maxDurationMs?: number;
  /** Levels of sub-agents (1: only the parent starts them; up to 3). */
  maxAgentDepth?: number;
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
  costOf?: (usage: Usage, model?: string) => number | undefined;
  /** The session's provider and the user's `modelAliases`: what a job's `model` resolves against. */
  models?: { provider: ProviderName; aliases?: Readonly<Record<string, string>> };
  /** Tells the user something once (a job's model that the provider cannot serve). */
  warn?: (text: string) => void;
  /** Environment facts and project instructions for typed children's system prompts. */
  sharedContext?: string;
  /** Where job numbering starts (after a resumed session's earlier jobs). */
  firstJobNumber?: number;
  /** The user's hooks for each job (SubagentStart, SubagentStop, its tool calls). */
  hooks?: ChildHooks;
  // Isolation: jobs in git worktrees.
  /** The session's job worktrees; without them, isolation "worktree" is refused. */
  worktrees?: WorktreeJobs;
  now?: () => number;
  timers?: Timers;
}

/** A session's sub-agent machinery: the manager, its tools, and the budget's notes to the model. */
export interface SessionAgents {
  manager: JobManager;
  /** The session's cost, parent and jobs, each job at its own model's prices; undefined when a price is unknown. */
  cost(): number | undefined;
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

  /** The whole session's cost, each job at its own model's prices. */
  const sessionCost = () => {
    const models = new Map(manager.list().map((job) => [job.id, job.model]));
    return sumCosts(
      ledger.breakdown().map(({ name, usage }) => options.costOf?.(usage, name === 'parent' ? undefined : models.get(name))),
    );
  };
  const warned = new Set<string>();
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

  const maxDepth = Math.min(Math.max(config.maxAgentDepth ?? 1, 1), MAX_AGENT_DEPTH);
  // Filled in once the tools exist: children below the depth limit get the same agent tools.
  const nesting = { agentTools: [] as AnyTool[], maxDepth };
  const worktrees = options.worktrees;
  const writes = new FileWrites();
  const running = (jobId: string) => manager.active().some((job) => job.id === jobId);
  const isolated = (jobId: string, definition: string) =>
    manager.get(jobId).isolation === 'worktree' || options.definitions.get(definition)?.isolation === 'worktree';
  const isolate = (run: ChildRunner): ChildRunner => (worktrees ? worktrees.runner(run, isolated) : run);
  const manager: JobManager = new JobManager({
    maxConcurrent: config.maxConcurrent,
    maxDepth,
    modelFor: (name, requested) => {
      const definition = options.definitions.get(name);
      const choice = resolveModel(requested ?? definition?.model, {
        provider: options.models?.provider ?? 'anthropic',
        parentModel: options.model,
        aliases: options.models?.aliases,
      });
      if (choice.refused && !warned.has(choice.refused)) {
        warned.add(choice.refused);
        options.warn?.(choice.refused);
      }
      return choice;
    },
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
        hooks: options.hooks,
        nesting,
        trackWrites: (jobId, tools) => writes.track(jobId, tools, running),
      }),
    ),
    forkSnapshot: options.forkSnapshot,
    firstNumber: options.firstJobNumber,
  });

  /**
   * A job past its own cap ends failed, with the cap and the figure named. A cap counts the
   * job's subtree (the jobs it started), so the job and each of its owners is checked.
   */
  function enforceJobBudget(jobId: string): void {
    const jobs = manager.list();
    for (const job of jobs.filter((j) => j.id === jobId || isDescendantId(jobId, j.id))) {
      const caps = job.budget;
      if (!caps) continue;
      const subtree = jobs.filter((j) => j.id === job.id || isDescendantId(j.id, job.id));
      const tokens = subtree.reduce((sum, j) => sum + totalTokens(j.usage), 0);
      const cost = sumCosts(subtree.map((j) => options.costOf?.(j.usage, j.model)));
      const fractions = [
        caps.maxTokens !== undefined ? tokens / caps.maxTokens : 0,
        caps.maxCostUsd !== undefined && cost !== undefined ? cost / caps.maxCostUsd : 0,
      ];
      manager.noteBudget(job.id, Math.max(...fractions));
      if (caps.maxTokens !== undefined && tokens >= caps.maxTokens) {
        manager.fail(job.id, `budget: tokens reached (${tokens} of ${caps.maxTokens})`);
        continue;
      }
      if (caps.maxCostUsd !== undefined && cost !== undefined && cost >= caps.maxCostUsd) {
        manager.fail(job.id, `budget: cost reached (${dollars(cost)} of ${dollars(caps.maxCostUsd)})`);
      }
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
  const tools = agentTools(manager, summaries);
  nesting.agentTools = tools;
  return {
    manager,
    cost: sessionCost,
    worktrees,
    tools: [...tools, ...(worktrees ? worktreeTools(worktrees, running, (file) => writes.writersOf(file)) : [])],
    boundaryMessages: () => {
      // The parent's own usage counts too; it is settled by the time a step boundary comes.
      enforceBudget();
      const out: Message[] = notes.splice(0).map((text) => ({ role: 'user', content: [{ type: 'text', text }] }));
      return [...out, ...manager.boundaryMessages().map((message) => withBranches(message, worktrees))];
    },
  };
}

/** The sum of some costs; unknown when any of them is. */
function sumCosts(costs: (number | undefined)[]): number | undefined {
  let sum = 0;
  for (const cost of costs) {
    if (cost === undefined) return undefined;
    sum += cost;
  }
  return sum;
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
