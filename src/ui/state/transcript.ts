import { messageText } from '../../core/providers/types.js';
import type { SessionEvent } from '../../core/session/event-stream.js';
import { hookLine } from '../../core/hooks/hook-line.js';
import { causeText, resultSummary, retryText } from '../format.js';

/** One finished line (or block) of the transcript: once added it never changes. */
export type EntryBody =
  | { kind: 'user'; text: string }
  /** A turn the app started by itself because a sub-agent completed (wake-on-complete). */
  | { kind: 'wake' }
  | { kind: 'assistant'; text: string }
  | { kind: 'tool'; name: string; label: string; summary: string; isError: boolean }
  | { kind: 'retry'; text: string }
  | { kind: 'injected'; text: string }
  | { kind: 'notice'; level: 'info' | 'warn'; text: string }
  /** Sub-agents that ended together; `idle` when the model hears of them only with the next prompt. */
  | { kind: 'jobs'; ids: string[]; lines: string[]; idle: boolean }
  /** How a turn ended when it did not complete. */
  | { kind: 'end'; text: string; isError: boolean }
  | { kind: 'info'; text: string }
  | { kind: 'error'; text: string }
  /** A block of output of a command (/help, /cost). */
  | { kind: 'block'; title: string; lines: string[] };

export type Entry = EntryBody & { id: number };

/** A tool call that has started and not ended; `update` is the last line it streamed. */
export interface LiveTool {
  id: string;
  name: string;
  label: string;
  update?: string;
}

/** The append-only entries (rendered once, by <Static>) and the live region below them. */
export interface TranscriptState {
  entries: Entry[];
  /** Assistant text still streaming. */
  liveText: string;
  thinking: boolean;
  tools: LiveTool[];
  nextId: number;
  /** Counts event batches, so completions of one batch share one entry. */
  batch: number;
  /** The batch the last `jobs` entry was made in. */
  jobsBatch: number;
  /** A parent turn is running (from its `submit` to its `run_end`). */
  turnRunning: boolean;
}

export const initialTranscript: TranscriptState = {
  entries: [],
  liveText: '',
  thinking: false,
  tools: [],
  nextId: 1,
  batch: 0,
  jobsBatch: -1,
  turnRunning: false,
};

/** Starts a batch: the events that follow, until the next call, share completion entries. */
export function startBatch(state: TranscriptState): TranscriptState {
  return { ...state, batch: state.batch + 1 };
}

/** Adds one finished entry. */
export function append(state: TranscriptState, entry: EntryBody): TranscriptState {
  return { ...state, entries: [...state.entries, { ...entry, id: state.nextId }], nextId: state.nextId + 1 };
}

/** Streamed text not closed by a message_end (an interrupt) still belongs in the transcript. */
function settleLive(state: TranscriptState): TranscriptState {
  const text = state.liveText.trim() ? state.liveText : '';
  const settled = { ...state, liveText: '', thinking: false, tools: [] };
  return text ? append(settled, { kind: 'assistant', text }) : settled;
}

/** A job that ended done or error gets a line; which one reads how is the caller's (`line`). */
export function jobEnded(state: TranscriptState, id: string, line: string): TranscriptState {
  const last = state.entries[state.entries.length - 1];
  if (last?.kind === 'jobs' && state.jobsBatch === state.batch) {
    const merged: Entry = { ...last, ids: [...last.ids, id], lines: [...last.lines, line] };
    return { ...state, entries: [...state.entries.slice(0, -1), merged] };
  }
  return { ...append(state, { kind: 'jobs', ids: [id], lines: [line], idle: false }), jobsBatch: state.batch };
}

/** Marks this batch's completion entry as waiting for the next prompt (the caller knows what is still owed). */
export function markIdleCompletions(state: TranscriptState, stillOwed: (id: string) => boolean): TranscriptState {
  const last = state.entries[state.entries.length - 1];
  if (last?.kind !== 'jobs' || state.jobsBatch !== state.batch || state.turnRunning || !last.ids.some(stillOwed)) return state;
  return { ...state, entries: [...state.entries.slice(0, -1), { ...last, idle: true }] };
}

/**
 * One session event into the transcript. Every event type is named, so a new one fails to
 * compile here. Job events are the job reducer's, except the ones the caller turns into lines.
 */
export function applyTranscriptEvent(state: TranscriptState, event: SessionEvent): TranscriptState {
  switch (event.type) {
    case 'submit':
      return {
        ...append(state, event.prompt === undefined ? { kind: 'wake' } : { kind: 'user', text: event.prompt }),
        turnRunning: true,
      };
    case 'text_delta':
      return { ...state, liveText: state.liveText + event.text, thinking: false };
    case 'thinking_delta':
      return state.thinking ? state : { ...state, thinking: true };
    case 'message_end': {
      const text = messageText(event.message);
      const cleared = { ...state, liveText: '', thinking: false };
      return text.trim() ? append(cleared, { kind: 'assistant', text }) : cleared;
    }
    case 'retry':
      return append({ ...state, liveText: '' }, { kind: 'retry', text: retryText(event) });
    case 'tool_start':
      return { ...state, tools: [...state.tools, { id: event.id, name: event.name, label: event.label }] };
    case 'tool_update': {
      const update = lastLine(event.text);
      return { ...state, tools: state.tools.map((tool) => (tool.id === event.id ? { ...tool, update } : tool)) };
    }
    case 'tool_end': {
      const started = state.tools.find((tool) => tool.id === event.id);
      const tools = state.tools.filter((tool) => tool.id !== event.id);
      return append(
        { ...state, tools },
        {
          kind: 'tool',
          name: event.name,
          label: started?.label ?? '',
          summary: resultSummary(event.content, event.isError),
          isError: event.isError,
        },
      );
    }
    case 'injected':
      return append(state, { kind: 'injected', text: messageText(event.message) });
    case 'compact':
      return append(state, {
        kind: 'info',
        text: `compacted the conversation: ${event.removedMessages} earlier messages replaced by a summary (${event.summaryChars} characters)`,
      });
    case 'notice':
      return append(state, { kind: 'notice', level: event.level, text: event.text });
    case 'hook': {
      const line = hookLine(event);
      return line ? append(state, { kind: 'notice', ...line }) : state;
    }
    case 'run_end': {
      const settled = { ...settleLive(state), turnRunning: false };
      const text = causeText(event.cause);
      return text ? append(settled, { kind: 'end', text, isError: event.cause.kind !== 'aborted' }) : settled;
    }
    case 'budget_reached':
      return append(state, {
        kind: 'notice',
        level: 'warn',
        text: `${budgetUsed(event)}, no new sub-agents${event.stopped.length ? `; stopped ${event.stopped.join(', ')}` : ''}`,
      });
    // Rows, counts and deliveries live in the job state; completion lines are added by the caller.
    // MCP states live in the UI state (ui-store.ts adds the failure line); new tools need no line.
    case 'turn_start':
    case 'turn_end':
    case 'usage':
    case 'job_event':
    case 'job_state':
    case 'job_delivered':
    case 'mcp_server':
    case 'tools_changed':
      return state;
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unhandled)}`);
    }
  }
}

function lastLine(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return lines[lines.length - 1] ?? '';
}

/** `token budget reached: 1200 of 1000 tokens used`, `cost budget reached: $0.52 of $0.50 spent`. */
function budgetUsed(event: { limit: 'tokens' | 'costUsd'; budget: number; used: number }): string {
  return event.limit === 'tokens'
    ? `token budget reached: ${event.used} of ${event.budget} tokens used`
    : `cost budget reached: $${event.used.toFixed(2)} of $${event.budget.toFixed(2)} spent`;
}
