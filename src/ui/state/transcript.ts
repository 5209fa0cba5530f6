import { windowText } from './model-lines.js';
import { hookLine, messageText, type SessionEvent } from '../../core/index.js';
import { causeText, retryText, withImages } from '../format.js';
import { splitFinishedBlocks } from './stream-blocks.js';
import { type DiffLine, type JobLookup, forPeople, toolAction, toolResultView } from './tool-text.js';

/** One finished line (or block) of the transcript: once added it never changes. */
export type EntryBody =
  /** The first line: what runs where, and how it asks. */
  | { kind: 'header'; model: string; cwd: string; mode: string }
  | { kind: 'user'; text: string }
  /** A turn the app started by itself because these sub-agents completed (wake-on-complete). */
  | { kind: 'wake'; ids: string[] }
  /** Assistant text (Markdown); `continued` when an earlier part of the same message printed before it. */
  | { kind: 'assistant'; text: string; continued?: boolean }
  /** A finished tool call: what it did (`action`), its result for people, and for edits the diff. */
  | { kind: 'tool'; name: string; action: string; summary: string; isError: boolean; diff?: DiffLine[]; single?: boolean }
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
  /** What it does, for people (`grep "auth" src`). */
  action: string;
  args: unknown;
  update?: string;
}

/** The append-only entries (rendered once, by <Static>) and the live region below them. */
export interface TranscriptState {
  entries: Entry[];
  /** Assistant text still streaming. */
  liveText: string;
  /** The current message's text already printed as finished blocks (streaming prints block by block). */
  livePrinted: string;
  tools: LiveTool[];
  nextId: number;
  /** Counts event batches, so completions of one batch share one entry. */
  batch: number;
  /** The batch the last `jobs` entry was made in. */
  jobsBatch: number;
  /** A parent turn is running (from its `submit` to its `run_end`). */
  turnRunning: boolean;
  /**
   * Completion lines of jobs that ended while a message streamed: committed after that message, so
   * scrollback never has them between a prompt and the answer that was already on its way.
   */
  held?: { ids: string[]; lines: string[] };
}

export const initialTranscript: TranscriptState = {
  entries: [],
  liveText: '',
  livePrinted: '',
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

function assistantEntry(text: string, continued: boolean): EntryBody {
  return continued ? { kind: 'assistant', text, continued } : { kind: 'assistant', text };
}

/** Streamed text not closed by a message_end (an interrupt) still belongs in the transcript. */
function settleLive(state: TranscriptState): TranscriptState {
  const text = state.liveText.trim() ? state.liveText : '';
  const settled = { ...state, liveText: '', livePrinted: '', tools: [] };
  return text ? append(settled, assistantEntry(text, state.livePrinted !== '')) : settled;
}

/** A job that ended done or error gets a line; which one reads how is the caller's (`line`). */
export function jobEnded(state: TranscriptState, id: string, line: string): TranscriptState {
  if (state.liveText !== '' || state.livePrinted !== '') {
    const held = state.held ?? { ids: [], lines: [] };
    return { ...state, held: { ids: [...held.ids, id], lines: [...held.lines, line] } };
  }
  const last = state.entries[state.entries.length - 1];
  if (last?.kind === 'jobs' && state.jobsBatch === state.batch) {
    const merged: Entry = { ...last, ids: [...last.ids, id], lines: [...last.lines, line] };
    return { ...state, entries: [...state.entries.slice(0, -1), merged] };
  }
  return { ...append(state, { kind: 'jobs', ids: [id], lines: [line], idle: false }), jobsBatch: state.batch };
}

/** Commits the completion lines held while a message streamed, once it has ended. */
function releaseHeld(state: TranscriptState): TranscriptState {
  if (!state.held || state.liveText !== '' || state.livePrinted !== '') return state;
  const { held } = state;
  return {
    ...append({ ...state, held: undefined }, { kind: 'jobs', ids: held.ids, lines: held.lines, idle: false }),
    jobsBatch: state.batch,
  };
}

/** Marks this batch's completion entry as waiting for the next prompt (the caller knows what is still owed). */
export function markIdleCompletions(state: TranscriptState, stillOwed: (id: string) => boolean): TranscriptState {
  const last = state.entries[state.entries.length - 1];
  if (last?.kind !== 'jobs' || state.jobsBatch !== state.batch || state.turnRunning || !last.ids.some(stillOwed)) return state;
  return { ...state, entries: [...state.entries.slice(0, -1), { ...last, idle: true }] };
}

/** What the transcript needs to know besides the event when it words it. */
export interface JobFacts {
  /** Jobs whose completion the model has not heard of yet (a turn without a prompt carries them). */
  owed: readonly string[];
  /** Sub-agents still queued or running. */
  running: number;
  /** The workspace root: paths are shown relative to it. */
  root?: string;
  /** A job by id (agent_start's result names the job it started). */
  job?: JobLookup;
}

const noJobFacts: JobFacts = { owed: [], running: 0 };

/**
 * One session event into the transcript. Every event type is named, so a new one fails to
 * compile here. Job events are the job reducer's, except the ones the caller turns into lines.
 */
export function applyTranscriptEvent(state: TranscriptState, event: SessionEvent, jobs: JobFacts = noJobFacts): TranscriptState {
  return releaseHeld(applyEvent(state, event, jobs));
}

function applyEvent(state: TranscriptState, event: SessionEvent, jobs: JobFacts): TranscriptState {
  switch (event.type) {
    case 'submit': {
      const entry: EntryBody =
        event.prompt === undefined
          ? { kind: 'wake', ids: [...jobs.owed] }
          : { kind: 'user', text: withImages(event.prompt, event.images ?? []) };
      return { ...append(state, entry), turnRunning: true };
    }
    case 'text_delta': {
      // Finished blocks print now and never change; only the block still growing stays live.
      const live = state.liveText + event.text;
      const { done, rest } = splitFinishedBlocks(live);
      if (!done) return { ...state, liveText: live };
      const printed = state.livePrinted + live.slice(0, live.length - rest.length);
      return { ...append(state, assistantEntry(done, state.livePrinted !== '')), liveText: rest, livePrinted: printed };
    }
    case 'message_end': {
      const text = messageText(event.message);
      const continued = state.livePrinted !== '';
      // The rest of the message after the blocks already printed (what streamed, should the two differ).
      const rest = !continued ? text : text.startsWith(state.livePrinted) ? text.slice(state.livePrinted.length) : state.liveText;
      const cleared = { ...state, liveText: '', livePrinted: '' };
      return rest.trim() ? append(cleared, assistantEntry(rest.replace(/^\n+/, ''), continued)) : cleared;
    }
    case 'retry':
      return append({ ...state, liveText: '', livePrinted: '' }, { kind: 'retry', text: retryText(event) });
    case 'tool_start': {
      const action = toolAction(event.name, event.args, event.label, jobs.root);
      return { ...state, tools: [...state.tools, { id: event.id, name: event.name, action, args: event.args }] };
    }
    case 'tool_update': {
      const update = lastLine(event.text);
      return { ...state, tools: state.tools.map((tool) => (tool.id === event.id ? { ...tool, update } : tool)) };
    }
    case 'tool_end': {
      const started = state.tools.find((tool) => tool.id === event.id);
      const tools = state.tools.filter((tool) => tool.id !== event.id);
      const view = toolResultView({
        name: event.name,
        args: started?.args,
        content: event.content,
        isError: event.isError,
        job: jobs.job,
      });
      return append(
        { ...state, tools },
        { kind: 'tool', name: event.name, action: started?.action ?? event.name, isError: event.isError, ...view },
      );
    }
    case 'injected':
      return append(state, { kind: 'injected', text: forPeople(messageText(event.message)) });
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
      const text = causeText(event.cause, jobs.running);
      return text ? append(settled, { kind: 'end', text, isError: event.cause.kind !== 'aborted' }) : settled;
    }
    case 'model_changed':
      return append(state, { kind: 'info', text: modelChangedText(event) });
    case 'budget_reached':
      return append(state, {
        kind: 'notice',
        level: 'warn',
        text: `${budgetUsed(event)}, no new sub-agents${event.stopped.length ? `; stopped ${event.stopped.join(', ')}` : ''}`,
      });
    // Rows, counts and deliveries live in the job state; completion lines are added by the caller.
    // MCP states live in the UI state (ui-store.ts adds the failure line); new tools need no line.
    // The turn's phase (thinking, a tool, the model, a wait for a rate limit) is the working line's: see turn-activity.ts.
    case 'rate_limit':
    case 'thinking_delta':
    case 'turn_start':
    case 'turn_end':
    case 'usage':
    case 'job_event':
    case 'job_state':
    case 'job_delivered':
    case 'todos':
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

/** The line a model switch leaves in the conversation. */
function modelChangedText(event: { model: string; contextWindow: number; effort?: string }): string {
  const effort = event.effort ? ` · effort ${event.effort}` : '';
  return `model: ${event.model}${effort} (${windowText(event.contextWindow)}) from the next turn; sub-agents that inherit start on it`;
}
