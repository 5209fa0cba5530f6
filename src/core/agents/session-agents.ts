import type { ToolGate } from '../loop/tool-runner.js';
import type { TurnParticipant } from '../loop/turn-participant.js';
import { definitionEffort, effortFor } from '../providers/effort.js';
import type { Effort, Message, StreamFn, Usage } from '../providers/types.js';
import type { AnyTool, Workspace } from '../tools/define.js';
import { MAX_AGENT_DEPTH } from '../jobs/job-ids.js';
import { SessionBudget } from '../jobs/budget.js';
import { resolveModel } from './model-resolution.js';
import type { ProviderName } from '../providers/types.js';
import type { OutputLimiter, ToolRegistry } from '../tools/registry.js';
import { agentTools } from './agent-tools.js';
import { definitionCaps } from './definition-caps.js';
import { FanOutApproval, fanOutEstimate } from './fan-out-approval.js';
import type { Approver, PermissionMode } from '../permissions/types.js';
import type { ChildHooks, ChildTranscript } from './child-run.js';
import { type JobScope, forWorker, scopedChildRunner } from './scoped-run.js';
import type { ChildRunner } from '../jobs/job-types.js';
import type { AgentDefinition } from './definitions.js';
import { type ForkSnapshot, type Job, type JobEvent, JobManager, type Timers } from '../jobs/job-manager.js';
import type { SessionLedger } from '../jobs/ledger.js';
import { noticeOwedOnceIdle } from '../jobs/wake-scheduler.js';
import { type UsageReport, usageReport } from '../jobs/usage-report.js';
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
  /** Each job's dollar cap (with the jobs it starts) unless its definition or agent_start sets a lower one. */
  maxCostUsd?: number;
  /** Each job's tool calls per run unless its definition or agent_start sets fewer. */
  maxToolCalls?: number;
  /** Levels of sub-agents (1: only the parent starts them; up to 3). */
  maxAgentDepth?: number;
  /** A running sub-agent with no event this long is named once to its owner. */
  stallNoticeMs?: number;
  /** `never` or `over:N`: when the parent's starts of one turn ask the user (fan-out-approval.ts). */
  approve?: string;
}

export interface SessionAgentsOptions {
  definitions: Map<string, AgentDefinition>;
  /** The parent's tools without the agent tools: what children are filtered from. */
  parentTools: ToolRegistry;
  stream: StreamFn;
  /** The parent's model now: what `inherit` means for a job started from now on (`/model` switches it). */
  model: () => string;
  /** The answer's cap asked for (settings' `maxTokens`): each job's is bounded by its model's output cap. */
  maxTokens: number;
  /** A model's output cap (the catalogue and the settings' `models`). */
  maxOutputOf?: (model: string) => number;
  /** The session's reasoning effort now (settings, --effort, /model); a definition's own is over it. */
  effort?: () => Effort | undefined;
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
  /** What a definition's `mcpServers`, `hooks` and `memory` need of the session (agents/scoped-run.ts). */
  jobScope?: JobScope;
  // Isolation: jobs in git worktrees.
  /** The session's job worktrees; without them, isolation "worktree" is refused. */
  worktrees?: WorktreeJobs;
  /**
   * The session's queue (remote/session-queue.ts, `--queue`): the jobs it takes run on workers.
   * Typed here by what the jobs need of it, since agents/ sits below remote/.
   */
  queue?: { run: ChildRunner; takes(job: QueueTakes): boolean; detach(): Promise<void> };
  /** Fan-out approval: the session's permission mode now, and who to ask (absent headless: refused). */
  fanOut?: { mode: () => PermissionMode; ask?: Approver; warn?: (text: string) => void };
  now?: () => number;
  timers?: Timers;
}

/** What the queue judges a job by: a sub-agent the parent started, not kept local, or one to attach to again. */
export type QueueTakes = Pick<Job, 'kind' | 'where' | 'depth'> & { attach?: unknown };

/** A session's sub-agent machinery: the manager, its tools, and the budget's notes to the model. */
export interface SessionAgents {
  manager: JobManager;
  /** The session's cost, parent and jobs, each job at its own model's prices; undefined when a price is unknown. */
  cost(): number | undefined;
  /** Usage and cost by job and by model (/cost, the headless results). */
  usage(): UsageReport;
  tools: AnyTool[];
  /** The isolated jobs' worktrees (`/agents merge|discard <id>`); absent where isolation is off. */
  worktrees?: WorktreeJobs;
  /** Messages for the next step boundary: budget notes, then the completion notice. */
  boundaryMessages(): Message[];
  /** Counts the parent's starts per turn against `agents.approve`. */
  fanOut?: FanOutApproval;
  /** Where nobody watches (headless, ACP): resolves once no sub-agent runs; true when an end is owed to the model. */
  readonly waitForNotices: (signal: AbortSignal) => Promise<boolean>;
  /** `usage` at job `jobId`'s model's prices (the parent's when no job is named, or it is unknown). */
  readonly costOf: (usage: Usage, jobId?: string) => number | undefined;
}

export function createSessionAgents(options: SessionAgentsOptions): SessionAgents {
  const { config } = options;
  const budget = new SessionBudget({
    ledger: options.ledger,
    caps: { maxSessionTokens: config.maxSessionTokens, maxSessionCostUsd: config.maxSessionCostUsd },
    costOf: options.costOf,
  });
  const warned = new Set<string>();
  // The settings' caps of every job: a definition's own replace them, agent_start may lower them.
  const sessionCaps = {
    maxTurns: config.maxTurns,
    maxTokens: config.maxTotalTokens,
    maxCostUsd: config.maxCostUsd,
    maxToolCalls: config.maxToolCalls,
    maxDurationMs: config.maxDurationMs,
  };

  const maxDepth = Math.min(Math.max(config.maxAgentDepth ?? 1, 1), MAX_AGENT_DEPTH);
  // Filled in once the tools exist: children below the depth limit get the same agent tools.
  const nesting = { agentTools: [] as AnyTool[], maxDepth };
  const worktrees = options.worktrees;
  const writes = new FileWrites();
  const running = (jobId: string) => manager.active().some((job) => job.id === jobId);
  const isolated = (jobId: string, definition: string) =>
    manager.get(jobId).isolation === 'worktree' || options.definitions.get(definition)?.isolation === 'worktree';
  const isolate = (run: ChildRunner): ChildRunner => (worktrees ? worktrees.runner(run, isolated) : run);
  const queue = options.queue;
  // A job the queue takes runs on a worker, in a worktree of its own there; the rest run here.
  const routed = (local: ChildRunner): ChildRunner =>
    queue
      ? (request) =>
          queue.takes({ kind: 'sub' as const, where: request.where, depth: request.depth, attach: request.attach })
            ? queue.run(forWorker(request, options.definitions.get(request.definition), options.warn))
            : local(request)
      : local;
  const manager: JobManager = new JobManager({
    // 0 (--max-agents 0) offers no agent tools at all; the manager still holds background shells' jobs.
    maxConcurrent: Math.max(config.maxConcurrent ?? 4, 1),
    stallNoticeMs: config.stallNoticeMs,
    maxDepth,
    modelFor: (name, requested) => {
      const definition = options.definitions.get(name);
      const choice = resolveModel(requested ?? definition?.model, {
        provider: options.models?.provider ?? 'anthropic',
        parentModel: options.model(),
        aliases: options.models?.aliases,
      });
      if (choice.refused && !warned.has(choice.refused)) {
        warned.add(choice.refused);
        options.warn?.(choice.refused);
      }
      // Its definition's effort over the session's, where its model takes one (else said once, not sent).
      const asked = definitionEffort(definition?.effort, options.effort?.(), { fromRepository: definition?.fromRepository });
      const effort = effortFor(options.models?.provider ?? 'anthropic', choice.model, asked);
      if (effort.notice && !warned.has(effort.notice)) {
        warned.add(effort.notice);
        options.warn?.(effort.notice);
      }
      return effort.effort ? { ...choice, effort: effort.effort } : choice;
    },
    pollTimeoutMs: config.pollTimeoutMs,
    definitions: () => [...options.definitions.keys()],
    capsFor: (name) => {
      const definition = options.definitions.get(name);
      return definition ? definitionCaps(definition, sessionCaps) : {};
    },
    emit: options.emit,
    now: options.now,
    timers: options.timers,
    budget,
    ...(queue ? { remote: { runsRemotely: (job: QueueTakes) => queue.takes(job), detach: () => queue.detach() } } : {}),
    run: routed(
      isolate(
        scopedChildRunner({
          definitions: () => options.definitions,
          parentTools: options.parentTools,
          stream: options.stream,
          model: options.model(),
          maxTokens: options.maxTokens,
          ...(options.maxOutputOf ? { maxOutputOf: options.maxOutputOf } : {}),
          workspace: options.workspace,
          limits: {
            maxTurns: config.maxTurns,
            maxTotalTokens: config.maxTotalTokens,
            maxDuration: config.maxDurationMs,
            maxToolCalls: config.maxToolCalls,
          },
          ...(options.now ? { now: options.now } : {}),
          ...(options.timers ? { timers: options.timers } : {}),
          gateFor: options.gateFor,
          limitOutput: options.limitOutput,
          transcriptFor:
            options.transcriptFor && ((request, definition) => options.transcriptFor!(request.id, definition, request.task)),
          sharedContext: options.sharedContext,
          hooks: options.hooks,
          nesting,
          trackWrites: (jobId, tools) => writes.track(jobId, tools, running),
          jobScope: options.jobScope,
        }),
      ),
    ),
    forkSnapshot: options.forkSnapshot,
    firstNumber: options.firstJobNumber,
  });

  const summaries = [...options.definitions.values()].map((d) => ({ name: d.name, description: d.description }));
  const fanOut = options.fanOut
    ? new FanOutApproval({
        ...options.fanOut,
        ...(config.approve !== undefined ? { setting: config.approve } : {}),
        estimate: (count) =>
          fanOutEstimate(count, manager.list(), { costOf: options.costOf, maxTotalTokens: config.maxTotalTokens }),
      })
    : undefined;
  const budgeted = config.maxSessionTokens !== undefined || config.maxSessionCostUsd !== undefined;
  const tools = agentTools(manager, summaries, undefined, {
    fanOut,
    ...(budgeted ? { sessionBudget: () => budget.sessionLeft(manager.list()) } : {}),
  });
  nesting.agentTools = tools;
  const offered = config.maxConcurrent !== 0;
  return {
    manager,
    cost: () => budget.cost(manager.list()),
    usage: () =>
      usageReport({
        ledger: options.ledger,
        jobs: manager.list(),
        parentModel: options.model(),
        costOf: options.costOf ?? (() => undefined),
      }),
    worktrees,
    fanOut,
    tools: offered ? [...tools, ...(worktrees ? worktreeTools(worktrees, running, (file) => writes.writersOf(file)) : [])] : [],
    // Budget notes, then the completion notice, each isolated job's branch named in it.
    boundaryMessages: () => manager.boundaryMessages().map((message) => withBranches(message, worktrees)),
    waitForNotices: (signal) => noticeOwedOnceIdle(manager, signal),
    // A row asks on every frame: one lookup by id, not a sorted copy of every job.
    costOf: (usage, jobId) => options.costOf?.(usage, jobId === undefined ? undefined : modelOfJob(manager, jobId)),
  };
}

function modelOfJob(manager: JobManager, jobId: string): string | undefined {
  try {
    return manager.get(jobId).model;
  } catch {
    return undefined;
  }
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

/** The session's approver, telling the stall watch while a sub-agent waits for the user's answer (it is not stalled). */
export function jobAwareApprover(approver: Approver | undefined, manager: () => JobManager): Approver | undefined {
  if (!approver) return undefined;
  return (request, signal) =>
    request.jobId === undefined
      ? approver(request, signal)
      : manager().stalls.whileAsking(request.jobId, () => approver(request, signal));
}

/**
 * The jobs' part in the parent's turns: owed notices (and budget notes) open a turn and join
 * at step boundaries, a tool batch's agent_start calls reserve their ids in the order written,
 * a notice in the history confirms its delivery, and an interrupted turn leaves them owed.
 */
export function jobsParticipant(agents: SessionAgents): TurnParticipant {
  const { manager } = agents;
  return {
    name: 'jobs',
    turnStart: () => {
      agents.fanOut?.newTurn();
      return agents.boundaryMessages();
    },
    stepBoundary: () => agents.boundaryMessages(),
    beforeToolBatch: (calls) => {
      manager.reserve(calls);
      agents.fanOut?.batch(calls);
    },
    messageAppended: (message) => manager.confirm(message),
    turnEnd: (result) => {
      if (result.cause.kind === 'aborted') manager.interrupted();
    },
  };
}
