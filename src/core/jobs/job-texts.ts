import { formatDuration, formatTokens, oneLine } from '../platform/text.js';
import type { Job, PollResult, SendResult } from './job-types.js';

/** A poll of a running job mentions how long it has had no event once it is this long. */
const POLL_STALL_MS = 60_000;

/** What a child returns when its last message had no text. */
export const NO_TEXT_OUTPUT = '(sub-agent produced no text output)';

/** The tool result of a poll, in the words of the spec. */
export function describePoll(result: PollResult, now: number): { content: string; isError: boolean } {
  const { job } = result;
  if (result.kind === 'interrupted') return { content: 'poll interrupted', isError: true };
  if (result.kind === 'running') {
    const elapsed = formatDuration(now - (job.startedAt ?? job.createdAt));
    const waits = job.waitingFor?.length ? ` (waiting for ${job.waitingFor.join(', ')})` : '';
    const state = job.state === 'queued' ? `still queued${waits}` : 'still running';
    // A job with no event for a while says so: the caller may stop it or send it a message.
    const idle = job.state === 'running' && job.lastEventAt !== undefined ? now - job.lastEventAt : 0;
    const stalled = idle >= POLL_STALL_MS ? `; no progress for ${formatDuration(idle)}` : '';
    return {
      content: `sub-agent ${job.id} ${state} after ${elapsed}, ${job.toolCalls} tool calls, ~${formatTokens(job.contextTokens)} context tokens${stalled}`,
      isError: false,
    };
  }
  // Stopped with a reason: a job it waited for was stopped.
  if (job.state === 'aborted')
    return { content: `sub-agent ${job.id} was stopped${job.error ? `: ${job.error}` : ''}`, isError: false };
  if (job.state === 'error') {
    const partial = job.result && job.result !== NO_TEXT_OUTPUT ? `\nPartial result:\n${job.result}` : '';
    return { content: `sub-agent ${job.id} failed: ${job.error ?? 'unknown error'}${partial}`, isError: true };
  }
  return { content: job.result ?? NO_TEXT_OUTPUT, isError: false };
}

/** The one message that tells the model which jobs completed (sub-agents and background shells). */
export function completionNotice(ids: string[]): string {
  const shells = ids.filter((id) => id.startsWith('sh-'));
  if (shells.length === 0) {
    if (ids.length === 1) return `Sub-agent ${ids[0]} completed. Call agent_poll with id ${ids[0]} for its summary.`;
    return `Sub-agents ${ids.join(', ')} completed. Call agent_poll for each summary.`;
  }
  if (shells.length === ids.length) {
    if (ids.length === 1)
      return `Background shell ${ids[0]} exited. Call agent_poll with id ${ids[0]} for its output and exit code.`;
    return `Background shells ${ids.join(', ')} exited. Call agent_poll for each one's output and exit code.`;
  }
  return `Jobs ${ids.join(', ')} completed. Call agent_poll for each result.`;
}

/** What a message to a job did, as `agent_send` tells the model (the TUI words a resume for the user itself). */
export function sentText(sent: SendResult): string {
  const { id } = sent.job;
  switch (sent.kind) {
    case 'inbox':
      return `Sent to ${id}; it reads it at its next step.`;
    case 'task':
      return `Added to ${id}'s task; it has not started yet.`;
    case 'resumed':
      return `Sub-agent ${id} resumed with your message (${sent.job.state}). Call agent_poll with id ${id} for its new summary.`;
    case 'stdin':
      return sent.pendingBytes > 0
        ? `Wrote to ${id}'s stdin; it has not read ${sent.pendingBytes} bytes of it yet.`
        : `Wrote to ${id}'s stdin.`;
  }
}

/** One line per job for a compaction summary, so running jobs survive it; undefined without jobs. */
export function jobStateLines(jobs: readonly Job[]): string | undefined {
  if (jobs.length === 0) return undefined;
  return jobs.map((job) => `- ${job.id} (${job.definition}, ${job.state}): ${oneLine(job.task, 80)}`).join('\n');
}
