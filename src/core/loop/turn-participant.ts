import type { Message, ToolUseBlock } from '../providers/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { HistoryReplacement, LoopResult } from './agent-loop.js';
import type { LoopEvent } from './events.js';
import type { LoopHooks } from './loop-hooks.js';

/** A prompt's review before it joins the history: `block` drops it (and the turn); `context` goes with it. */
export interface PromptReview {
  block?: string;
  context?: string;
}

/**
 * Something that takes part in the parent's turns: the jobs, the compactor, the MCP tools,
 * the transcript, the user's hooks. Each is built by its own factory and says which moments
 * it cares about; the session asks every participant at each moment, in the order given.
 */
export interface TurnParticipant {
  /** Its name, for whoever reads a session's assembly. */
  readonly name: string;
  /** Before the prompt joins the history (UserPromptSubmit). */
  reviewPrompt?(prompt: string, signal: AbortSignal, emit: (event: LoopEvent) => void): Promise<PromptReview>;
  /** At the start of a turn: the tools to offer from now on when they changed, asked only here so a turn's tools never change. */
  toolsForTurn?(current: ToolRegistry): ToolRegistry | undefined;
  /** Messages that open a turn, before the user's own (owed notices, a SessionStart hook's context). */
  turnStart?(): Message[];
  /** Messages for each step boundary inside a turn. */
  stepBoundary?(): Message[];
  /** A tool batch, before any of it runs. */
  beforeToolBatch?(calls: ToolUseBlock[]): void;
  /** A message joined the history. */
  messageAppended?(message: Message): void;
  /** Before each model call: a shorter history when the context is near its limit. */
  beforeModelCall?(history: Message[], signal: AbortSignal): Promise<HistoryReplacement | undefined>;
  /** The provider said the request is too long: a shorter history to retry with. */
  contextTooLong?(history: Message[], signal: AbortSignal): Promise<HistoryReplacement | undefined>;
  /** The user's hooks around each tool call and at the end of the model's work. */
  readonly userHooks?: LoopHooks;
  /** A turn ended, however it ended. */
  turnEnd?(result: LoopResult): void;
}
