import type { AgentEvent } from '../loop/events.js';
import type { Message, StreamFn } from '../providers/types.js';
import { CompactionError, compactHistory, needsCompaction } from './compaction.js';
import type { Session } from './session.js';
import type { TranscriptWriter } from './transcript.js';

export interface CompactorOptions {
  session: Session;
  stream: StreamFn;
  model: string;
  maxTokens: number;
  contextWindow: number;
  transcript: TranscriptWriter;
  /** The state of every sub-agent job, carried into the summary so none is forgotten. */
  jobState: () => string | undefined;
}

/** When and how a session's history is compacted: near the window, on demand, on a too-long error. */
export interface Compactor {
  /** Before a turn: compacts when the last request passed ~85% of the window. */
  compactIfNeeded(signal: AbortSignal): Promise<AgentEvent | undefined>;
  /** The provider said the request is too long: a shorter history to retry with, or undefined. */
  compactForRetry(history: Message[], signal: AbortSignal): Promise<Message[] | undefined>;
  /** `/compact`: now, whatever the size. */
  compactNow(signal: AbortSignal): Promise<AgentEvent>;
}

export function createCompactor(options: CompactorOptions): Compactor {
  const { session } = options;

  async function compact(history: readonly Message[], signal: AbortSignal): Promise<{ event: AgentEvent; history: Message[] }> {
    const result = await compactHistory(
      {
        history,
        stream: options.stream,
        model: options.model,
        maxTokens: options.maxTokens,
        system: session.system,
        extraState: options.jobState(),
        maxInputTokens: options.contextWindow - options.maxTokens,
      },
      signal,
    );
    session.ledger.addParent(result.usage);
    options.transcript.compaction({ summary: result.summary, keptMessages: result.keptMessages, removedMessages: result.removedMessages });
    const summaryChars = result.summary.content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
    return { event: { type: 'compact', removedMessages: result.removedMessages, summaryChars }, history: result.history };
  }

  const failed = (error: unknown): AgentEvent => {
    if (!(error instanceof CompactionError) && !(error instanceof Error)) throw error;
    return { type: 'notice', level: 'warn', text: `compaction failed: ${error.message}` };
  };

  return {
    async compactIfNeeded(signal) {
      const due = needsCompaction({
        contextTokens: session.contextTokens(),
        contextWindow: options.contextWindow,
        reservedTokens: options.maxTokens,
      });
      if (!due) return undefined;
      try {
        const { event, history } = await compact(session.messages(), signal);
        session.replaceHistory(history);
        return event;
      } catch (error) {
        if (signal.aborted) return undefined;
        return failed(error);
      }
    },
    async compactForRetry(history, signal) {
      try {
        return (await compact(history, signal)).history;
      } catch {
        return undefined;
      }
    },
    async compactNow(signal) {
      try {
        const { event, history } = await compact(session.messages(), signal);
        session.replaceHistory(history);
        return event;
      } catch (error) {
        return failed(error);
      }
    },
  };
}
