import type { JobManager } from '../core/agents/job-manager.js';
import { worktreeCommand } from '../core/agents/worktree-tools.js';
import type { LoopResult } from '../core/loop/agent-loop.js';
import type { Usage } from '../core/providers/types.js';
import type { EventStream, SessionEvent } from '../core/session/event-stream.js';
import type { StoredJob } from '../core/session/job-store.js';
import type { InstructionFileInfo } from '../core/session/instruction-files.js';
import type { OpenedSession } from '../core/session/open-session.js';

/** What the UI may ask of sub-agents: intents only; what they do comes from the event stream. */
export type JobControl = Pick<JobManager, 'stop' | 'stopAll'>;

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
  readonly warnings: readonly string[];
  /** Messages already in the history when the app started (a resumed session). */
  readonly resumedMessages: number;
  /** The jobs of a resumed session's earlier runs. */
  readonly storedJobs: readonly StoredJob[];
  /** The session's one ordered stream of turn and job events. */
  readonly events: Pick<EventStream, 'subscribe'>;
  readonly jobs: JobControl;
  /** Runs a turn; its events arrive on `events`. Without a prompt the turn carries only the pending completion notice. */
  submit(prompt: string | undefined, signal: AbortSignal): Promise<LoopResult>;
  /** Start a turn by itself when a sub-agent completes while idle (setting `wakeOnComplete`). */
  readonly wakeOnComplete: boolean;
  compact(signal: AbortSignal): Promise<SessionEvent | undefined>;
  /** The parent, then each job; `total` covers all of them. */
  costs(): { rows: CostRow[]; total: CostRow };
  /** The instruction files in the system prompt, for /memory. */
  readonly instructionFiles?: readonly InstructionFileInfo[];
  /** `/agents merge|discard <id>`: an isolated job's worktree applied to the checkout, or removed. */
  worktree?(verb: 'merge' | 'discard', id: string): Promise<{ content: string; isError: boolean }>;
}

/** Adapts an opened core session to what the UI needs. */
export function uiSessionFrom(opened: OpenedSession): UiSession {
  const { session } = opened;
  return {
    model: opened.model,
    warnings: opened.warnings,
    resumedMessages: session.messages().length,
    storedJobs: opened.storedJobs,
    events: opened.events,
    jobs: opened.agents.manager,
    submit: (prompt, signal) => session.submit(prompt, signal),
    wakeOnComplete: opened.wakeOnComplete,
    compact: (signal) => opened.compact(signal),
    instructionFiles: opened.instructionFiles,
    worktree: (verb, id) =>
      worktreeCommand(opened.agents.worktrees, verb, id, (job) => opened.agents.manager.active().some((j) => j.id === job)),
    costs: () => ({
      rows: session.ledger.breakdown().map(({ name, usage }) => ({ name, usage, cost: opened.costOf(usage) })),
      total: { name: 'total', usage: opened.totals(), cost: opened.cost() },
    }),
  };
}
