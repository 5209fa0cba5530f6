import type { ToolGate } from '../loop/tool-runner.js';
import type { Message, StreamFn } from '../providers/types.js';
import type { AnyTool, Workspace } from '../tools/define.js';
import type { OutputLimiter, ToolRegistry } from '../tools/registry.js';
import { agentTools } from './agent-tools.js';
import { type ChildTranscript, createChildRunner } from './child-run.js';
import type { AgentDefinition } from './definitions.js';
import { type ForkSnapshot, type JobEvent, JobManager, type Timers } from './job-manager.js';
import type { SessionLedger } from './ledger.js';

/** Sub-agent settings of a session (flags over settings over defaults, already merged). */
export interface AgentLimitsConfig {
  maxConcurrent?: number;
  pollTimeoutMs?: number;
  maxSessionTokens?: number;
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
  gateFor?: (jobId: string, definition: AgentDefinition) => ToolGate;
  limitOutput?: OutputLimiter;
  transcriptFor?: (jobId: string, definition: AgentDefinition, task: string) => ChildTranscript | undefined;
  forkSnapshot?: () => ForkSnapshot;
  /** Where job numbering starts (after a resumed session's earlier jobs). */
  firstJobNumber?: number;
  now?: () => number;
  timers?: Timers;
}

/** A session's sub-agent machinery: the manager, its tools, and the budget's notes to the model. */
export interface SessionAgents {
  manager: JobManager;
  tools: AnyTool[];
  /** Messages for the next step boundary: budget notes, then the completion notice. */
  boundaryMessages(): Message[];
}

export function createSessionAgents(options: SessionAgentsOptions): SessionAgents {
  const { config, ledger } = options;
  const budget = config.maxSessionTokens;
  const notes: string[] = [];
  let budgetSpent = false;

  const budgetMessage = () =>
    `the session budget of ${budget} tokens is spent (${ledger.totalTokens()} used, sub-agents included): no new sub-agents. ` +
    'Raise it with --max-budget-tokens or agents.maxSessionTokens in settings.';

  const manager: JobManager = new JobManager({
    maxConcurrent: config.maxConcurrent,
    pollTimeoutMs: config.pollTimeoutMs,
    definitions: () => [...options.definitions.keys()],
    emit: options.emit,
    now: options.now,
    timers: options.timers,
    admission: () => (budget !== undefined && ledger.totalTokens() >= budget ? budgetMessage() : undefined),
    onUsage: (jobId, usage) => {
      ledger.addJob(jobId, usage);
      enforceBudget();
    },
    run: createChildRunner({
      definitions: () => options.definitions,
      parentTools: options.parentTools,
      stream: options.stream,
      model: options.model,
      maxTokens: options.maxTokens,
      workspace: options.workspace,
      limits: { maxTurns: config.maxTurns, maxTotalTokens: config.maxTotalTokens, maxDuration: config.maxDurationMs },
      gateFor: options.gateFor,
      limitOutput: options.limitOutput,
      transcriptFor: options.transcriptFor && ((request, definition) => options.transcriptFor!(request.id, definition, request.task)),
    }),
    forkSnapshot: options.forkSnapshot,
    firstNumber: options.firstJobNumber,
  });

  /** Past the budget: stop every running job, and say so to the user and the model. */
  function enforceBudget(): void {
    if (budget === undefined || budgetSpent || ledger.totalTokens() < budget) return;
    budgetSpent = true;
    const stopped = manager.active().map((job) => job.id);
    manager.stopAll();
    notes.push(`Token budget reached: ${budgetMessage()}${stopped.length ? ` Stopped ${stopped.join(', ')}.` : ''}`);
    options.emit({ type: 'budget_reached', budget, used: ledger.totalTokens(), stopped });
  }

  const summaries = [...options.definitions.values()].map((d) => ({ name: d.name, description: d.description }));
  return {
    manager,
    tools: agentTools(manager, summaries),
    boundaryMessages: () => {
      // The parent's own usage counts too; it is settled by the time a step boundary comes.
      enforceBudget();
      const out: Message[] = notes.splice(0).map((text) => ({ role: 'user', content: [{ type: 'text', text }] }));
      return [...out, ...manager.boundaryMessages()];
    },
  };
}
