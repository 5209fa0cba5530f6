import type { QueueStep } from './merge-queue.js';
import type { QueueReport } from './worktree-jobs.js';

/** The words a merge of several jobs is told in, to the model and to the user alike. */
export function describeQueue(
  ids: readonly string[],
  report: QueueReport,
  check?: string,
): { content: string; isError: boolean } {
  const overlaps = report.overlaps.map((o) => `also touched by ${o.jobId} (not merged): ${o.files.join(', ')}`);
  const named = ids.join(', ');
  if (report.ok) {
    const what = report.files.length
      ? `applied ${report.files.join(', ')} to the checkout (uncommitted)`
      : 'they changed nothing';
    const after = check ? `, \`${check}\` passing after each` : '';
    return {
      content: [
        `Merged ${named}, in that order${after}: ${what}; their worktrees and branches are removed.`,
        ...report.steps.map(stepLine),
        ...overlaps,
      ].join('\n'),
      isError: false,
    };
  }
  const { stop, applied, notTried } = report;
  const kept = 'Nothing in the checkout was changed, and every job’s branch and worktree is kept.';
  const before =
    applied.length > 0
      ? `Applied cleanly before it, in a temporary worktree (now removed): ${applied.map((s) => s.jobId + (s.check ? ' (check passed)' : '')).join(', ')}.`
      : undefined;
  const untried = notTried.length ? `Not tried: ${notTried.join(', ')}.` : undefined;
  const lines: string[] = [];
  switch (stop.kind) {
    case 'conflict':
      lines.push(
        `Did not merge ${named}: ${stop.jobId} conflicts with the checkout and the jobs before it. ${kept}`,
        ...[before ?? `${stop.jobId} was the first.`, untried].filter((l) => l !== undefined),
        `Conflicting files of ${stop.jobId}:`,
        ...stop.conflicts.map((c) => `- ${c.file}: ${c.reason}`),
        `Merge the others without it, or have ${stop.jobId} rebase its work on the checkout (agent_send it a message), or discard it.`,
      );
      break;
    case 'check':
      lines.push(
        `Did not merge ${named}: the check \`${check ?? ''}\` failed after ${stop.jobId} was applied (${stop.check.why}). ${kept}`,
        ...[before ?? `${stop.jobId} was the first.`, untried].filter((l) => l !== undefined),
        stop.check.tail.length ? `Last lines of the check's output:` : 'The check printed nothing.',
        ...stop.check.tail.map((line) => `  ${line}`),
      );
      break;
    case 'branch':
      lines.push(
        `Did not merge ${named}: ${stop.jobId}: ${stop.message}. ${kept}`,
        ...[before, untried].filter((l) => l !== undefined),
      );
      break;
    case 'checkout':
      lines.push(
        `Did not merge ${named}: every job applied${check ? ' and passed the check' : ''}, but the result does not apply to the checkout as it is now (it changed during the merge). ${kept} Merge again. Files:`,
        ...stop.conflicts.map((c) => `- ${c.file}: ${c.reason}`),
      );
      break;
    case 'interrupted':
      lines.push(
        `Did not merge ${named}: the merge was interrupted${stop.jobId ? ` while checking ${stop.jobId}` : ''}. ${kept}`,
      );
      break;
  }
  return { content: [...lines, ...overlaps].join('\n'), isError: true };
}

function stepLine(step: QueueStep): string {
  const files = step.files.length ? step.files.join(', ') : 'no files changed';
  return `- ${step.jobId}: ${files}${step.check ? ' (check passed)' : ''}`;
}
