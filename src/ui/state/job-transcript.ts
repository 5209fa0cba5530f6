import { forkStart, type Job, type JobHistory, type LoopEvent, type Message, type SessionEvent } from '../../core/index.js';
import { historyEntries } from './history-entries.js';
import { toolAction } from './tool-text.js';
import {
  type EntryBody,
  type JobFacts,
  type LiveTool,
  type TranscriptState,
  append,
  applyTranscriptEvent,
  initialTranscript,
} from './transcript.js';

/**
 * One job's whole transcript, for the job view: its stored history drawn as a resumed
 * conversation is, then its live events reduced by the main chat's own reducer, so Markdown,
 * diffs and tool results look as they do in the chat. Built for the opened job only.
 */
export interface JobTranscript {
  jobId: string;
  transcript: TranscriptState;
  /**
   * Opened while a model call streamed: the text before the opening is not in the file, so the
   * message is shown whole when it ends rather than from the middle.
   */
  midCall: boolean;
  /** The workspace root: paths are shown relative to it. */
  root?: string;
}

/** What the builder needs besides the history. */
export interface JobTranscriptOptions {
  /** The job may be in a model call or running tools (it was not ended when read). */
  running: boolean;
  /** A fork's history starts with its parent's conversation: shown from the fork's own task. */
  fork?: boolean;
  /** The workspace root: paths are shown relative to it. */
  root?: string;
  /** The session's jobs: a nested job's start and end are drawn with its task. */
  jobs?: readonly Job[];
}

/** Messages sent to a job (job-messages.ts writes them so). */
const FROM = /^Message from the (user|parent agent):\n/;

/** The job's transcript as its stored history has it, with the calls still running shown live. */
export function jobTranscript(jobId: string, history: JobHistory, options: JobTranscriptOptions): JobTranscript {
  const start = options.fork ? forkStart(history.messages) : 0;
  const messages = history.messages.slice(start);
  const entries: EntryBody[] = [];
  if (start > 0) entries.push({ kind: 'info', text: `${start} messages of the parent's conversation came before the fork` });
  if (history.error) entries.push({ kind: 'error', text: history.error });
  for (const entry of historyEntries(messages, { root: options.root, max: Number.MAX_SAFE_INTEGER, jobs: options.jobs })) {
    entries.push(fromSender(entry) ?? entry);
  }
  const tools: LiveTool[] = history.pending.map((call) => ({
    id: call.id,
    name: call.name,
    action: toolAction(call.name, call.input, '', options.root),
    args: call.input,
  }));
  const transcript = { ...entries.reduce(append, initialTranscript), tools };
  return { jobId, transcript, midCall: options.running, ...(options.root !== undefined ? { root: options.root } : {}) };
}

/** One session event into the job's transcript: its own events, and nothing else. */
export function applyJobTranscriptEvent(state: JobTranscript, event: SessionEvent, facts?: JobFacts): JobTranscript {
  if (event.type !== 'job_event' || event.jobId !== state.jobId) return state;
  const inner = event.event;
  if (inner.type === 'text_delta' && state.midCall) return state;
  if (inner.type === 'injected') {
    const entry = fromSender(injectedEntry(inner.message));
    if (entry) return { ...state, transcript: append(state.transcript, entry) };
  }
  const transcript = applyTranscriptEvent(state.transcript, inner, {
    owed: [],
    running: 0,
    ...facts,
    root: facts?.root ?? state.root,
  });
  return { ...state, transcript, midCall: state.midCall && !endsCall(inner) };
}

/** After these, the next text the view sees starts a message. */
function endsCall(event: LoopEvent): boolean {
  return event.type === 'turn_start' || event.type === 'message_end' || event.type === 'retry' || event.type === 'run_end';
}

/** A message the job got, drawn as the main chat draws what the user typed. */
function injectedEntry(message: Message): EntryBody {
  const text = message.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
  return { kind: 'user', text };
}

/** `› now the tests` for the user's message to the job, `› from the parent: …` for its parent's; undefined for others. */
function fromSender(entry: EntryBody): EntryBody | undefined {
  if (entry.kind !== 'user') return undefined;
  const from = FROM.exec(entry.text);
  if (!from) return undefined;
  const body = entry.text.slice(from[0].length);
  return { kind: 'user', text: from[1] === 'user' ? body : `from the parent: ${body}` };
}
