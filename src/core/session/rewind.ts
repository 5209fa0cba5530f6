import type { Conversation } from '../loop/conversation.js';
import type { Message } from '../providers/types.js';
import { displayPath } from '../platform/paths.js';
import { isSummaryMessage } from './compaction.js';
import type { FileCheckpoints } from './file-checkpoints.js';
import { sha256 } from './file-state.js';
import { type RestoreReport, restoreFiles } from './restore-files.js';
import type { TranscriptWriter } from './transcript.js';

/** What a rewind puts back: Claude Code's four choices but "never mind". */
export type RewindMode = 'code-and-conversation' | 'conversation' | 'code';

/** An earlier prompt the conversation can go back to. */
export interface RewindPoint {
  /** Where the prompt stands in the history: going back to it keeps the messages before it. */
  index: number;
  /** The prompt as it joined the history (a custom command's body, expanded). */
  text: string;
  /** The files the agent changed from this prompt on (relative to the workspace root), which restoring code puts back. */
  files: string[];
}

/** What a rewind did. */
export interface RewindOutcome {
  /** The prompt's text, for the input line (empty when only code was restored). */
  prompt: string;
  /** Messages taken out of the conversation (0 when only code was restored). */
  removedMessages: number;
  /** The files, when code was restored. */
  files?: RestoreReport;
}

/** A rewind that cannot be done now, worded for the user. */
export class RewindError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RewindError';
  }
}

/** The part of a user prompt that is its text: the first text block (a hook's context comes after it). */
export function promptText(message: Message): string {
  return message.content.find((block) => block.type === 'text')?.text ?? '';
}

/** Shaped like a prompt the user typed: a user message without tool results, not a notice or a summary. */
export function isPromptShaped(message: Message): boolean {
  return (
    message.role === 'user' &&
    !message.noticeFor?.length &&
    !isSummaryMessage(message) &&
    message.content.every((block) => block.type !== 'tool_result')
  );
}

/**
 * The prompts of `history` the checkpoints know, oldest first (the newest is the last). A prompt
 * of this run is known by its message; a resumed one by its text's hash, matched from the newest
 * back (a compaction takes the oldest away, a rewind the newest). Messages shaped like prompts
 * that the log never knew (a hook's context, a budget note, a session older than checkpoints)
 * are not offered.
 */
export function rewindPoints(history: readonly Message[], checkpoints: FileCheckpoints): RewindPoint[] {
  return knownPrompts(history, checkpoints).map(({ index, n, text }) => ({
    index,
    text,
    files: checkpoints.changesSince(n).map((change) => displayPath(checkpoints.workspace, change.path)),
  }));
}

/** The prompts of `history` matched with the log's, and their numbers there, oldest first. */
function knownPrompts(history: readonly Message[], checkpoints: FileCheckpoints): { index: number; n: number; text: string }[] {
  const points = checkpoints.points();
  const found: { index: number; n: number; text: string }[] = [];
  let next = points.length - 1;
  for (let index = history.length - 1; index >= 0 && next >= 0; index--) {
    const message = history[index]!;
    if (!isPromptShaped(message)) continue;
    const text = promptText(message);
    const own = checkpoints.pointOf(message);
    const hash = own === undefined ? sha256(text) : undefined;
    // The newest point not matched yet that is this message's: a prompt whose point is missing (its
    // text redacted in the transcript) or a message the log never knew leaves the others matched.
    const at = points.findLastIndex((point, i) => i <= next && (own !== undefined ? point.n === own : point.hash === hash));
    if (at < 0) continue;
    found.push({ index, n: points[at]!.n, text });
    next = at - 1;
  }
  return found.reverse();
}

/** What a rewind works on: the parent's conversation, its transcript, the checkpoints, and whether a turn runs. */
export interface RewindParts {
  conversation: Conversation;
  transcript: TranscriptWriter;
  checkpoints: FileCheckpoints;
  /** True while a turn of the parent runs: nothing is taken back under it. */
  busy: () => boolean;
}

/**
 * Goes back to before the prompt at `index` (one of `rewindPoints`): the conversation keeps what
 * came before it (the transcript says so, for a resumed session), and/or every file the agent
 * changed since is put back as it was. Sub-agents are not stopped, and completions the model has
 * not heard of stay owed; a notice it had heard of is taken back with its messages, its job
 * staying delivered (agent_poll still reads it).
 */
export async function rewind(parts: RewindParts, index: number, mode: RewindMode): Promise<RewindOutcome> {
  if (parts.busy()) throw new RewindError('a turn is running: wait for it to end (or press Esc to interrupt it), then /rewind');
  const history = parts.conversation.messages();
  const point = knownPrompts(history, parts.checkpoints).find((p) => p.index === index);
  if (!point) throw new RewindError('that prompt is no longer in the conversation: open /rewind again to choose another');
  // The conversation first, in the same tick as the check: no turn can start in between.
  const removedMessages = mode === 'code' ? 0 : history.length - index;
  if (mode !== 'code') {
    parts.conversation.replaceHistory(history.slice(0, index));
    parts.transcript.rewind(removedMessages);
    parts.checkpoints.rewound(point.n);
  }
  const changes = parts.checkpoints.changesSince(point.n);
  const files = mode === 'conversation' ? undefined : await restoreFiles(changes, parts.checkpoints);
  return { prompt: mode === 'code' ? '' : point.text, removedMessages, ...(files ? { files } : {}) };
}
