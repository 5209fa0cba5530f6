import type { HistoryReplacement } from '../loop/agent-loop.js';
import type { LoopEvent } from '../loop/events.js';
import type { Message, StreamFn } from '../providers/types.js';
import { CompactionError, type MessageSizes, compactHistory, estimateTokens, needsCompaction } from './compaction.js';
import type { SessionLedger } from '../jobs/ledger.js';
import type { Conversation } from '../loop/conversation.js';
import type { TurnParticipant } from '../loop/turn-participant.js';
import type { TranscriptWriter } from './transcript.js';

export interface CompactorOptions {
  /** The parent's conversation: what is compacted. */
  conversation: Conversation;
  /** Where a compaction's own model call is counted. */
  ledger: SessionLedger;
  stream: StreamFn;
  /** The parent's model now (`/model` switches it): the summary's call and the window watched. */
  target: () => { model: string; maxTokens: number; contextWindow: number };
  transcript: TranscriptWriter;
  /** The state of every sub-agent job, carried into the summary so none is forgotten. */
  jobState: () => string | undefined;
  /** Told before each compaction starts (the PreCompact hooks): `auto` near the window, `manual` for /compact. */
  beforeCompact?: (trigger: 'auto' | 'manual', signal: AbortSignal) => Promise<void>;
}

/** When and how a session's history is compacted: near the window, on demand, on a too-long error. */
export interface Compactor {
  /** Before a model call: compacts when the request would pass ~85% of the window. */
  compactIfNeeded(history: Message[], signal: AbortSignal): Promise<HistoryReplacement | undefined>;
  /** The provider said the request is too long: a shorter history to retry with, or undefined. */
  compactForRetry(history: Message[], signal: AbortSignal): Promise<HistoryReplacement | undefined>;
  /** `/compact`: now, whatever the size. */
  compactNow(signal: AbortSignal): Promise<LoopEvent>;
}

export function createCompactor(options: CompactorOptions): Compactor {
  const { conversation } = options;
  // After a failed attempt, wait for the history to grow before paying for another one.
  let failedAtLength = -1;
  // The tool schemas never change in a session: their size is measured once.
  let schemaTokens = 0;
  // Each message's size, counted once: a message never changes in the history, and the
  // estimate runs before every model call (a 1,000-message history made it most of a step).
  const counted: MessageSizes = new WeakMap();
  let countedSchemas: unknown;

  async function compact(
    history: readonly Message[],
    signal: AbortSignal,
    trigger: 'auto' | 'manual' = 'auto',
  ): Promise<{ event: LoopEvent; history: Message[] }> {
    await options.beforeCompact?.(trigger, signal);
    const { model, maxTokens, contextWindow } = options.target();
    const result = await compactHistory(
      {
        history,
        stream: options.stream,
        model,
        maxTokens,
        system: conversation.context.system,
        extraState: options.jobState(),
        maxInputTokens: contextWindow - maxTokens,
      },
      signal,
    );
    options.ledger.addParent(result.usage, model);
    options.transcript.compaction({
      summary: result.summary,
      keptMessages: result.keptMessages,
      removedMessages: result.removedMessages,
    });
    const summaryChars = result.summary.content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
    return { event: { type: 'compact', removedMessages: result.removedMessages, summaryChars }, history: result.history };
  }

  const failed = (error: unknown): LoopEvent => {
    if (!(error instanceof CompactionError) && !(error instanceof Error)) throw error;
    return { type: 'notice', level: 'warn', text: `compaction failed: ${error.message}` };
  };

  return {
    async compactIfNeeded(history, signal) {
      // The last request's real count is the best figure, but it misses what was added since
      // (tool results can be large) and is unknown right after a resume: estimate too.
      // Counted again when the tools change (MCP servers join between turns).
      const schemas = conversation.context.tools.schemas();
      if (schemas !== countedSchemas) schemaTokens = Math.ceil(JSON.stringify(schemas).length / 4);
      countedSchemas = schemas;
      const estimate = estimateTokens(history, conversation.context.system, counted) + schemaTokens;
      const { maxTokens, contextWindow } = options.target();
      const due = needsCompaction({
        contextTokens: Math.max(conversation.contextTokens(), estimate),
        contextWindow,
        reservedTokens: maxTokens,
      });
      if (!due || history.length <= failedAtLength + 2) return undefined;
      try {
        return await compact(history, signal);
      } catch (error) {
        if (signal.aborted) return undefined;
        failedAtLength = history.length;
        // Carry on uncompacted; the provider's own error, if any, comes next.
        return { history, event: failed(error) };
      }
    },
    async compactForRetry(history, signal) {
      try {
        return await compact(history, signal);
      } catch {
        return undefined;
      }
    },
    async compactNow(signal) {
      try {
        const { event, history } = await compact(conversation.messages(), signal, 'manual');
        conversation.replaceHistory(history);
        return event;
      } catch (error) {
        return failed(error);
      }
    },
  };
}

/** The compactor's part in the parent's turns: near the window before a call, and on a too-long answer. */
export function compactionParticipant(compactor: Compactor): TurnParticipant {
  return {
    name: 'compaction',
    beforeModelCall: (history, signal) => compactor.compactIfNeeded(history, signal),
    contextTooLong: (history, signal) => compactor.compactForRetry(history, signal),
  };
}
