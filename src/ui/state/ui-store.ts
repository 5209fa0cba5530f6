import { type SequencedEvent, type StoredJob, type Todo, usageTokens } from '../../core/index.js';
import { type JobsState, type SentMessage, activeJobs, applyJobEvent, applySent, jobsFromStore, owedJobs } from './jobs.js';
import { completionLine } from './job-status.js';
import { type McpState, applyMcpStatus } from './mcp.js';
import { type TurnActivity, applyTurnActivity } from './turn-activity.js';
import {
  type EntryBody,
  type TranscriptState,
  append,
  applyTranscriptEvent,
  initialTranscript,
  jobEnded,
  markIdleCompletions,
  startBatch,
} from './transcript.js';

/** Everything the screen shows, derived from the session's events and the app's own lines. */
export interface UiState {
  transcript: TranscriptState;
  jobs: JobsState;
  /** Tokens of the parent's context window as of its last response; undefined when no response has said since the history changed (a resume, a compaction). */
  contextTokens?: number;
  /** Say under a completion that the model hears of it with the next prompt (wake-on-complete off). */
  hintIdleCompletions: boolean;
  /** The parent's running turn: its phase and figures, for the working line. */
  turn?: TurnActivity;
  /** The workspace root: paths are shown relative to it. */
  root?: string;
  /** The model's plan, as its last todo_write left it. */
  todos: readonly Todo[];
  /** The MCP servers as last reported (footer, /mcp). */
  mcp: McpState;
  /** Times the transcript was drawn afresh (/rewind): its <Static> is keyed on it, so it prints again. */
  redraws?: number;
  /** Dollars for the whole session, sub-agents included, as of the last batch that could change it (the store's `cost`). */
  cost?: number;
}

/** One item of a batch: a session event, or a line the app itself adds (a command's answer). */
export type UiItem =
  | { kind: 'event'; item: SequencedEvent }
  | { kind: 'line'; entry: EntryBody }
  /** The user's message reached a job (what `send` answered). */
  | { kind: 'sent'; sent: SentMessage }
  /** The transcript starts again with these entries (the conversation /rewind went back to). */
  | { kind: 'redraw'; entries: readonly EntryBody[] };

export function initialUiState(options: {
  intro: EntryBody[];
  storedJobs: readonly StoredJob[];
  wakeOnComplete: boolean;
  /** A resumed history: its size is unknown until the model answers. */
  resumed?: boolean;
  root?: string;
}): UiState {
  return {
    root: options.root,
    transcript: options.intro.reduce(append, initialTranscript),
    jobs: jobsFromStore(options.storedJobs),
    contextTokens: options.resumed ? undefined : 0,
    hintIdleCompletions: !options.wakeOnComplete,
    todos: [],
    mcp: [],
  };
}

/** Applies one batch in order: the pure reducer behind the store. `now`: when the batch is applied, on the app's clock. */
export function reduceBatch(state: UiState, items: readonly UiItem[], now = 0): UiState {
  let transcript = startBatch(state.transcript);
  let { jobs, contextTokens, turn, todos, mcp, redraws } = state;
  for (const item of items) {
    if (item.kind === 'redraw') {
      const empty = { ...transcript, entries: [], liveText: '', livePrinted: '', tools: [], held: undefined };
      transcript = item.entries.reduce(append, empty);
      // The history changed under the last figure: estimated until the model says again.
      contextTokens = undefined;
      redraws = (redraws ?? 0) + 1;
      continue;
    }
    if (item.kind === 'line') {
      transcript = append(transcript, item.entry);
      continue;
    }
    if (item.kind === 'sent') {
      jobs = applySent(jobs, item.sent);
      continue;
    }
    const { event } = item.item;
    const known = jobs;
    const facts = {
      owed: event.type === 'submit' ? owedJobs(jobs) : [],
      running: event.type === 'run_end' ? activeJobs(jobs).length : 0,
      root: state.root,
      job: (id: string) => known.get(id)?.job,
    };
    jobs = applyJobEvent(jobs, event);
    transcript = applyTranscriptEvent(transcript, event, facts);
    turn = applyTurnActivity(turn, event, now);
    if (event.type === 'job_state' && (event.job.state === 'done' || event.job.state === 'error')) {
      transcript = jobEnded(transcript, event.job.id, completionLine(event.job));
    }
    if (event.type === 'mcp_server') {
      const applied = applyMcpStatus(mcp, event.server);
      mcp = applied.state;
      if (applied.failed) transcript = append(transcript, { kind: 'notice', level: 'warn', text: applied.failed });
    }
    if (event.type === 'usage') {
      const u = event.usage;
      contextTokens = usageTokens(u);
    }
    if (event.type === 'compact') contextTokens = undefined;
    if (event.type === 'todos') todos = event.todos;
  }
  if (state.hintIdleCompletions) transcript = markIdleCompletions(transcript, (id) => jobs.get(id)?.owed ?? false);
  return { ...state, transcript, jobs, contextTokens, turn, todos, mcp, ...(redraws ? { redraws } : {}) };
}

/**
 * Whether an item can change what the session's cost counts: usage (the parent's, a job's, a
 * compaction's), a job's state (a remote job's usage comes with its end), a model switch.
 */
export function changesCost(item: UiItem): boolean {
  if (item.kind !== 'event') return false;
  const { event } = item.item;
  if (event.type === 'job_event') return event.event.type === 'usage';
  return event.type === 'usage' || event.type === 'compact' || event.type === 'job_state' || event.type === 'model_changed';
}

/**
 * Holds the UI state outside React, so what derives from it (wake-on-complete) reads the
 * state of the batch just applied; React renders it through `useSyncExternalStore`.
 */
export class UiStore {
  private state: UiState;
  private readonly listeners = new Set<() => void>();
  private readonly batchListeners = new Set<(items: readonly UiItem[], state: UiState) => void>();

  /**
   * `cost`: the session's whole cost, asked when the store starts and after each batch that can
   * change it, not at each render: it sorts and prices every job, about 5 % of the TUI's CPU
   * with 50 streaming sub-agents if asked per frame.
   */
  constructor(
    initial: UiState,
    private readonly options: { cost?: () => number | undefined } = {},
  ) {
    this.state = options.cost ? { ...initial, cost: options.cost() } : initial;
  }

  readonly snapshot = (): UiState => this.state;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Called after each batch with its items and the state it led to. */
  onBatch(listener: (items: readonly UiItem[], state: UiState) => void): () => void {
    this.batchListeners.add(listener);
    return () => {
      this.batchListeners.delete(listener);
    };
  }

  apply(items: readonly UiItem[], now?: number): void {
    if (items.length === 0) return;
    const next = reduceBatch(this.state, items, now);
    const { cost } = this.options;
    this.state = cost && items.some(changesCost) ? { ...next, cost: cost() } : next;
    for (const listener of this.listeners) listener();
    for (const listener of this.batchListeners) listener(items, this.state);
  }
}
