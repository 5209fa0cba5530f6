import { IMAGE_TOKENS, imageLabel, imageSummary } from '../providers/image-block.js';
import { MAX_SENT_IMAGES } from '../providers/image-window.js';
import { type Message, type StreamFn, type Usage, type ToolUseBlock, emptyUsage, messageText } from '../providers/types.js';

/** The first line of every summary message; a later compaction recognises its predecessor by it. */
export const SUMMARY_PREFIX = '[Summary of the earlier conversation]';
const JOBS_HEADING = '[Sub-agent jobs when this summary was written]';

/** Each message's size for the estimate, kept once counted: its characters, and its images apart. */
export type MessageSizes = WeakMap<Message, { chars: number; images: number }>;

/**
 * Rough token count of a request: characters / 4, plus a little per message; `counted` keeps each
 * message's size. An image counts what the model is charged for one, and only as many as a
 * request sends (image-window.ts: the newest MAX_SENT_IMAGES), not every one in the history.
 */
export function estimateTokens(messages: readonly Message[], system = '', counted?: MessageSizes): number {
  let chars = system.length;
  let images = 0;
  for (const message of messages) {
    let size = counted?.get(message);
    if (size === undefined) {
      size = messageSize(message);
      counted?.set(message, size);
    }
    chars += size.chars;
    images += size.images;
  }
  return Math.ceil((chars + Math.min(images, MAX_SENT_IMAGES) * IMAGE_TOKENS * 4) / 4);
}

/** What one message adds to the estimate: characters, and images. */
function messageSize(message: Message): { chars: number; images: number } {
  let chars = 16;
  let images = 0;
  for (const block of message.content) {
    if (block.type === 'text') chars += block.text.length;
    else if (block.type === 'thinking') chars += block.thinking.length;
    else if (block.type === 'tool_use') chars += block.name.length + (JSON.stringify(block.input) ?? '').length;
    // What the model is charged for an image depends on its pixels, not its base64 length.
    else if (block.type === 'image') images += 1;
    else {
      chars += block.content.length;
      images += block.images?.length ?? 0;
    }
  }
  return { chars, images };
}

/**
 * True when a request of `contextTokens` passes `threshold` of the window. The window
 * holds the answer too, so `reservedTokens` (the request's max output) comes off it first.
 */
export function needsCompaction(options: {
  contextTokens: number;
  contextWindow: number;
  threshold?: number;
  reservedTokens?: number;
}): boolean {
  const { contextTokens, contextWindow, threshold = 0.85, reservedTokens = 0 } = options;
  const usable = Math.max(contextWindow - reservedTokens, contextWindow * 0.25);
  return contextTokens > usable * threshold;
}

/** A user message that carries tool results (it must stay right after its tool calls). */
export function isToolResultMessage(message: Message): boolean {
  return message.role === 'user' && message.content.some((b) => b.type === 'tool_result');
}

export function isSummaryMessage(message: Message): boolean {
  const first = message.content[0];
  return message.role === 'user' && first?.type === 'text' && first.text.startsWith(SUMMARY_PREFIX);
}

/**
 * Splits the history before the last `keepRecentTurns` user turns. `recent` starts at a
 * user message without tool results, so no tool call is parted from its result.
 * `older` is empty when there is nothing worth compacting.
 */
export function splitForCompaction(history: readonly Message[], keepRecentTurns = 2): { older: Message[]; recent: Message[] } {
  const turnStarts = history.flatMap((m, i) => (m.role === 'user' && !isToolResultMessage(m) ? [i] : []));
  const keep = Math.max(1, keepRecentTurns);
  const cut = turnStarts.length >= keep ? turnStarts[turnStarts.length - keep] : 0;
  return splitAt(history, cut);
}

/**
 * Where compaction cuts: after the last `keepRecentTurns` user turns if it can; else
 * keeping fewer turns; else, when one long turn fills the window (an agent working
 * alone for a hundred steps), inside it, before one of its last `keepRecentTurns`
 * model steps, which still keeps every tool call with its result.
 */
export function chooseCompactionSplit(history: readonly Message[], keepRecentTurns = 2): { older: Message[]; recent: Message[] } {
  for (let keep = Math.max(1, keepRecentTurns); keep >= 1; keep--) {
    const split = splitForCompaction(history, keep);
    if (split.older.length > 0) return split;
  }
  const stepStarts = history.flatMap((m, i) => (i > 0 && m.role === 'assistant' && history[i - 1].role === 'user' ? [i] : []));
  for (let keep = Math.max(1, keepRecentTurns); keep >= 1; keep--) {
    if (stepStarts.length <= keep) continue;
    const split = splitAt(history, stepStarts[stepStarts.length - keep]);
    if (split.older.length > 0) return split;
  }
  return { older: [], recent: [...history] };
}

function splitAt(history: readonly Message[], cut: number): { older: Message[]; recent: Message[] } {
  const older = history.slice(0, cut);
  // A lone earlier summary is not worth summarising again.
  if (older.length === 0 || (older.length === 1 && isSummaryMessage(older[0]))) return { older: [], recent: [...history] };
  return { older, recent: history.slice(cut) };
}

/** Compaction could not be done; the history is unchanged. */
export class CompactionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompactionError';
  }
}

export interface CompactOptions {
  history: readonly Message[];
  stream: StreamFn;
  model: string;
  /** Max output of the summary call. */
  maxTokens: number;
  /** The session's system prompt, sent byte for byte (it never changes in a session). */
  system: string;
  keepRecentTurns?: number;
  /** The state of every sub-agent job: put verbatim in the request and after the summary, so running jobs survive. */
  extraState?: string;
  /** When given, the earlier conversation is shortened in its middle to fit this many input tokens. */
  maxInputTokens?: number;
}

export interface CompactResult {
  /** `[summary, ...recent]`. */
  history: Message[];
  summary: Message;
  removedMessages: number;
  keptMessages: number;
  usage: Usage;
}

const INSTRUCTIONS = [
  'The conversation so far is too long for the context window, so its earlier part is being replaced by a summary.',
  "Below is that earlier part: the user's messages, your replies, your tool calls and their results (long ones shortened).",
  'The most recent turns will be kept word for word after your summary, so focus on what came before them.',
  '',
  'Write a summary that lets you carry on the work without the original messages. Cover:',
  "1. The user's requests and goals, quoting their exact words where they matter.",
  '2. Files read, created or changed (with paths), and what changed in each.',
  '3. Decisions made and why; approaches tried and ruled out.',
  '4. Open tasks and next steps; anything the user is waiting for.',
  '5. The state of every sub-agent job: its id, task, whether it is queued, running, done or failed, and any result',
  '   already received. A job still running will report later or can be polled by its id.',
  '',
  'Reply with the summary only, as plain text. Do not call tools.',
].join('\n');

/**
 * Replaces the older part of the history with a summary written by one model call,
 * made with the session's own system prompt and no tools. The earlier conversation is
 * sent as text, not as tool-call blocks: a request without tools may not carry them.
 */
export async function compactHistory(options: CompactOptions, signal: AbortSignal): Promise<CompactResult> {
  const { older, recent } = chooseCompactionSplit(options.history, options.keepRecentTurns ?? 2);
  if (older.length === 0) {
    throw new CompactionError('the conversation is too short to compact; start a new session or shorten the request');
  }
  const jobs = options.extraState?.trim() ? options.extraState : undefined;
  const jobsIntro =
    'The current state of every sub-agent job (reflect it in item 5; it is added after your summary as it stands):';
  const jobsPart = jobs ? `\n\n${jobsIntro}\n<sub-agent-jobs>\n${jobs}\n</sub-agent-jobs>` : '';
  const frame = `${INSTRUCTIONS}\n\n<earlier-conversation>\n\n</earlier-conversation>${jobsPart}`;
  const budget =
    options.maxInputTokens === undefined
      ? undefined
      : Math.max(4_000, (options.maxInputTokens - estimateTokens([], options.system + frame)) * 4 * 0.9);
  const conversation = clip(renderConversation(older), budget);
  const prompt = `${INSTRUCTIONS}\n\n<earlier-conversation>\n${conversation}\n</earlier-conversation>${jobsPart}`;

  let reply: Message | undefined;
  let usage = emptyUsage();
  const request = {
    model: options.model,
    system: options.system,
    messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: prompt }] }],
    tools: [],
    maxTokens: options.maxTokens,
  };
  for await (const event of options.stream(request, signal)) {
    if (event.type === 'message_end') {
      reply = event.message;
      usage = event.usage;
    }
  }
  const text = reply ? messageText(reply).trim() : '';
  if (!text) throw new CompactionError('the model returned an empty summary; the history was left as it was');

  const summaryText = `${SUMMARY_PREFIX}\n${text}${jobs ? `\n\n${JOBS_HEADING}\n${jobs}` : ''}`;
  const summary: Message = { role: 'user', content: [{ type: 'text', text: summaryText }] };
  return { history: [summary, ...recent], summary, removedMessages: older.length, keptMessages: recent.length, usage };
}

const MAX_RESULT_CHARS = 2_000;
const MAX_ARGS_CHARS = 1_000;

/** The earlier conversation as plain text; thinking is left out, long tool output shortened, images named. */
export function renderConversation(messages: readonly Message[]): string {
  const toolNames = new Map<string, string>();
  const parts: string[] = [];
  for (const message of messages) {
    const speaker = message.role === 'user' ? 'User' : 'Assistant';
    for (const block of message.content) {
      if (block.type === 'text') {
        if (block.text.trim()) parts.push(`${speaker}: ${block.text}`);
      } else if (block.type === 'image') {
        // The summary call sends text: the model is told an image was there, not shown it again.
        parts.push(`${speaker}: ${imageLabel(imageSummary(block))}`);
      } else if (block.type === 'tool_use') {
        toolNames.set(block.id, block.name);
        parts.push(`Assistant called tool ${block.name} with ${clip(argsText(block), MAX_ARGS_CHARS)}`);
      } else if (block.type === 'tool_result') {
        const name = toolNames.get(block.toolUseId) ?? 'a tool';
        const label = block.isError ? `Error from ${name}` : `Result of ${name}`;
        parts.push(`${label}: ${clip(block.content, MAX_RESULT_CHARS)}`);
      }
    }
  }
  return parts.join('\n\n');
}

function argsText(block: ToolUseBlock): string {
  return JSON.stringify(block.input) ?? 'no arguments';
}

/** Keeps the head and tail of a long text, saying how much of the middle was left out. */
function clip(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  const head = Math.floor(max * 0.6);
  const tail = Math.floor(max * 0.3);
  return `${text.slice(0, head)}\n[… ${text.length - head - tail} characters left out …]\n${text.slice(text.length - tail)}`;
}
