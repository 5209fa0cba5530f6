import type { JobManager } from '../core/agents/job-manager.js';
import type { LoopResult } from '../core/loop/agent-loop.js';
import type { AgentEvent } from '../core/loop/events.js';
import type { Usage } from '../core/providers/types.js';
import type { OpenedSession } from '../core/session/open-session.js';
import { agentTranscriptPath } from '../core/session/store.js';

/** What the UI does with sub-agents: a real JobManager fits, and so does a test's fake. */
export type JobControl = Pick<JobManager, 'list' | 'get' | 'stop' | 'stopAll'>;

/** One row of /cost. */
export interface CostRow {
  name: string;
  usage: Usage;
  /** Dollars; undefined when the model's price is unknown. */
  cost?: number;
}

/** The part of an opened session the TUI talks to: it renders events and sends intents. */
export interface UiSession {
  readonly model: string;
  /** Path of a sub-agent's transcript file (`agents/sub-N.jsonl` in the session folder). */
  transcriptOf(jobId: string): string;
  readonly warnings: readonly string[];
  /** Messages already in the history when the app started (a resumed session). */
  readonly resumedMessages: number;
  readonly jobs: JobControl;
  /** Without a prompt the turn carries only the pending completion notice (wake-on-complete). */
  submit(prompt: string | undefined, signal: AbortSignal): AsyncGenerator<AgentEvent, LoopResult>;
  /** Start a turn by itself when a sub-agent completes while idle (setting `wakeOnComplete`). */
  readonly wakeOnComplete: boolean;
  /** True while a sub-agent's completion has not reached the model yet. */
  owesNotice(): boolean;
  /** Job events happen outside turns; returns the unsubscribe function. */
  onBackgroundEvent(listener: (event: AgentEvent) => void): () => void;
  compact(signal: AbortSignal): Promise<AgentEvent | undefined>;
  /** Tokens of the parent's context window (sub-agents not included). */
  contextTokens(): number;
  /** The parent, then each job; `total` covers all of them. */
  costs(): { rows: CostRow[]; total: CostRow };
}

/** Adapts an opened core session to what the UI needs. */
export function uiSessionFrom(opened: OpenedSession): UiSession {
  const { session } = opened;
  return {
    model: opened.model,
    transcriptOf: (jobId) => agentTranscriptPath(opened.paths, jobId),
    warnings: opened.warnings,
    resumedMessages: session.messages().length,
    jobs: opened.agents.manager,
    submit: (prompt, signal) => session.submit(prompt, signal),
    wakeOnComplete: opened.wakeOnComplete,
    owesNotice: () => opened.agents.manager.undelivered().length > 0,
    onBackgroundEvent: (listener) => opened.onBackgroundEvent(listener),
    compact: (signal) => opened.compact(signal),
    contextTokens: () => session.contextTokens(),
    costs: () => ({
      rows: session.ledger.breakdown().map(({ name, usage }) => ({ name, usage, cost: opened.costOf(usage) })),
      total: { name: 'total', usage: opened.totals(), cost: opened.cost() },
    }),
  };
}
