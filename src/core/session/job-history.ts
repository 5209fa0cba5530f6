/**
 * A sub-agent's conversation as its transcript holds it now, for a front end that shows the job
 * whole (the TUI's job view): the ledger writes each message as the job's run appends it, so the
 * file is the job's history up to its last message, whether the job runs, ended, or belongs to an
 * earlier run of the session. Front ends never read transcript files themselves: they ask here.
 */
import type { Message, ToolUseBlock } from '../providers/types.js';
import { errnoCode } from '../platform/fs-errors.js';
import { LOST_RESULT, repairHistory } from './repair-history.js';
import { type SessionPaths, agentTranscriptPath } from './store.js';
import { readTranscript } from './transcript.js';

/** What the file holds of one job's conversation. */
export interface JobHistory {
  messages: Message[];
  /**
   * The calls of its last message that have no result in the file yet: tools a running job is
   * running now. Their results are left out of `messages` (a repaired history would answer them
   * as lost); a job that is not running gets them answered as lost, as a resumed session does.
   */
  pending: ToolUseBlock[];
  /** Why the file could not be read, in one line; `messages` is empty then. */
  error?: string;
}

/**
 * Job `jobId`'s conversation from its transcript in the session folder `paths`. A job with no
 * file yet (queued, never started) has no messages. `running`: its last calls may still be
 * running, so they are returned as `pending` instead of answered as lost.
 */
export function readJobHistory(paths: SessionPaths, jobId: string, options: { running: boolean }): JobHistory {
  let raw: unknown[];
  try {
    raw = readTranscript(agentTranscriptPath(paths, jobId)).history;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { messages: [], pending: [] };
    const why = error instanceof Error ? error.message : String(error);
    return { messages: [], pending: [], error: `could not read ${jobId}'s transcript: ${why}` };
  }
  const { history } = repairHistory(raw);
  if (!options.running || !opensCalls(raw[raw.length - 1])) return { messages: history, pending: [] };
  // The repair answered the open calls as lost, in a message of its own after the calls' message.
  const calls = history[history.length - 2];
  const answers = history[history.length - 1];
  const lost = answers?.role === 'user' && answers.content.every((b) => b.type === 'tool_result' && b.content === LOST_RESULT);
  if (calls?.role !== 'assistant' || !lost) return { messages: history, pending: [] };
  return { messages: history.slice(0, -1), pending: calls.content.filter((b): b is ToolUseBlock => b.type === 'tool_use') };
}

/** Whether a message as written is the model's with tool calls (the file's last: their results are not written yet). */
function opensCalls(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const { role, content } = message as { role?: unknown; content?: unknown };
  return (
    role === 'assistant' && Array.isArray(content) && content.some((b) => (b as { type?: unknown } | null)?.type === 'tool_use')
  );
}
