/**
 * Jobs a session's end cut off. A crash (`kill -9`, power loss, a closed terminal) leaves the
 * jobs that were queued or running without an end in the store; a resumed session lists each
 * as failed and interrupted, keeps what it had done, and tells the model of them in one notice,
 * so the model never believes they finished nor forgets they existed.
 */
import { oneLine } from '../platform/text.js';
import { kindOf } from './job-ids.js';
import { NO_TEXT_OUTPUT, completionNotice } from './job-texts.js';
import type { Job } from './job-types.js';

/** The error an interrupted job carries: what `/agents`, a poll and the notice show. */
export const INTERRUPTED = 'interrupted (the session ended)';

/** The error of an interrupted job, with what was done about it since (`salvaged: …`). */
export function interruptedError(detail?: string): string {
  return detail ? `${INTERRUPTED}; ${detail}` : INTERRUPTED;
}

/** What `interruptedError` added after the reason, or ''. */
function detailOf(error: string | undefined): string {
  return error?.startsWith(`${INTERRUPTED}; `) ? error.slice(INTERRUPTED.length + 2) : '';
}

/** Longest last text a notice quotes of one job: enough to recognise it, never the whole report. */
const LAST_TEXT_CHARS = 160;

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** One line of the notice: what the job had done when the session ended. */
function progressLine(job: Job): string {
  const detail = detailOf(job.error);
  if (kindOf(job) === 'shell') {
    const last = job.lastLine ? `last line: "${oneLine(job.lastLine, LAST_TEXT_CHARS)}"` : 'no output seen';
    return `- ${job.id} (shell \`${oneLine(job.task, 80)}\`): ${[detail, last].filter(Boolean).join('; ')}`;
  }
  const text =
    job.result && job.result !== NO_TEXT_OUTPUT ? `last text: "${oneLine(job.result, LAST_TEXT_CHARS)}"` : 'no text yet';
  const counts = `${plural(job.turns, 'turn')}, ${plural(job.toolCalls, 'tool call')}`;
  // It never ran: it was still waiting for other jobs (agent_start's `after`).
  const waited = job.waitingFor?.length && !job.afterMet ? `still waiting for ${job.waitingFor.join(', ')}` : '';
  return `- ${job.id} (${job.definition}): ${[counts, waited, detail, text].filter(Boolean).join('; ')}`;
}

/** The notice naming every interrupted job of one batch, with what each had done and what the model can do now. */
export function interruptedNotice(jobs: Job[]): string {
  const ids = jobs.map((job) => job.id);
  const names = ids.length === 1 ? ids[0]! : `${ids.slice(0, -1).join(', ')} and ${ids.at(-1)!}`;
  const lines = [
    `Interrupted: the session ended (outrider was stopped or crashed) before ${names} finished. What ${ids.length === 1 ? 'it' : 'each'} had done:`,
    ...jobs.map(progressLine),
  ];
  if (jobs.some((job) => kindOf(job) === 'sub')) {
    lines.push(
      'Call agent_send with an id to resume that sub-agent with its history and your message, or agent_poll for its partial result.',
    );
  }
  if (jobs.some((job) => kindOf(job) === 'shell'))
    lines.push('A background shell cannot be resumed: start it again if it is still needed.');
  return lines.join('\n');
}

/** The one message of a delivery batch: the jobs that completed, then those the session's end cut off. */
export function deliveryNotice(jobs: Job[]): string {
  const completed = jobs.filter((job) => !job.interrupted).map((job) => job.id);
  const cut = jobs.filter((job) => job.interrupted);
  return [...(completed.length ? [completionNotice(completed)] : []), ...(cut.length ? [interruptedNotice(cut)] : [])].join(
    '\n\n',
  );
}
