import { Box, Text } from 'ink';
import { describeChanges, formatTokens, isEnded, type Job, oneLine, totalTokens, type WorktreeRecord } from '../../core/index.js';
import { cutLine, plural } from '../format.js';
import { deliveryText, elapsedOf, jobStateLabel, stateLabel } from '../state/job-status.js';
import type { JobView } from '../state/jobs.js';

export interface AgentsListProps {
  jobs: readonly JobView[];
  selected: number;
  now: number;
  width: number;
  /** Lines the list may take, border included: past it, a window of jobs around the selection. */
  maxLines?: number;
  /** Isolated jobs' worktrees waiting to be merged or discarded: listed under the jobs. */
  worktrees?: readonly WorktreeRecord[];
}

/** `1 message waiting for its next step`, `2 messages`: what a job got from the user or the parent. */
export function messagesText(view: Pick<JobView, 'messages' | 'unread'>): string | undefined {
  const parts: string[] = [];
  if (view.unread) parts.push(`${plural(view.unread, 'message')} from you waiting for its next step`);
  if (view.messages) parts.push(`${plural(view.messages, 'message')} received`);
  return parts.length ? parts.join(', ') : undefined;
}

/** `branch outrider/…/sub-1 · 1 file changed (+1 −1): a.txt`, or what stands in for it while the job runs. */
export function worktreeText(record: WorktreeRecord, state: Job['state'] | undefined): string {
  const branch = shortBranch(record.branch);
  if (state !== undefined && !isEnded(state)) return `branch ${branch} · ${stateLabel(state)}: changes are counted when it ends`;
  if (!record.changes) return `branch ${branch} · no changes recorded`;
  return describeChanges(record, record.changes).split(record.branch).join(branch);
}

/** `outrider/01a24059…/sub-1`: a session's UUID in a branch name takes a row's room; its start tells sessions apart. */
export function shortBranch(branch: string): string {
  return branch.replace(/\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '$1…');
}

/** Every job of the session: id, state, definition, label, elapsed, tokens, tool calls. */
export function AgentsList({ jobs, selected, now, width, maxLines = Number.MAX_SAFE_INTEGER, worktrees = [] }: AgentsListProps) {
  const inner = width - 4;
  // The worktrees come first when the height is short: they are what waits for the user.
  const worktreeLines = worktrees.length
    ? [
        `Worktrees waiting for merge or discard (${worktrees.length}): open the job, then m merges, d twice discards`,
        ...worktrees.map((record) => {
          const state = jobs.find((view) => view.job.id === record.jobId)?.job.state;
          return `  ${record.jobId}  ${worktreeText(record, state)}`;
        }),
      ].slice(0, Math.max(0, maxLines - 5))
    : [];
  const worktreeBlock = worktreeLines.map((text, i) => (
    <Text key={`w${i}`} color={i === 0 ? 'magenta' : undefined} bold={i === 0} wrap="truncate-end">
      {cutLine(text, inner)}
    </Text>
  ));
  if (jobs.length === 0) {
    return (
      <Box flexDirection="column" borderStyle="round" paddingX={1}>
        <Text bold>Sub-agents</Text>
        <Text dimColor>No sub-agents have been started in this session.</Text>
        {worktreeBlock}
        <Text dimColor>Esc back</Text>
      </Box>
    );
  }
  const cells = jobs.map(({ job }) => [
    // Nested jobs sit indented under their owner.
    `${'  '.repeat((job.depth ?? 1) - 1)}${job.id}`,
    jobStateLabel(job),
    job.definition,
    elapsedOf(job, now),
    `${formatTokens(totalTokens(job.usage))} tok`,
    plural(job.toolCalls, 'tool'),
  ]);
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  // Border, title and key hint take four lines, the worktrees theirs; the rest is a window that keeps the selection in view.
  const room = Math.max(1, maxLines - 4 - worktreeLines.length);
  const first = jobs.length <= room ? 0 : Math.min(Math.max(0, selected - room + 1), jobs.length - room);
  const shown = jobs.slice(first, first + room);
  const hidden = first > 0 || first + room < jobs.length ? ` · ${first + 1}–${first + shown.length} of ${jobs.length}` : '';
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold wrap="truncate-end">{`Sub-agents (${jobs.length})${hidden}`}</Text>
      {shown.map((view, shownIndex) => {
        const index = first + shownIndex;
        const { job } = view;
        const c = cells[index]!;
        const delivery = view.delivery === 'woke' ? `${deliveryText(view)} · ` : '';
        const waiting = job.state === 'queued' && job.waitingFor?.length ? `for ${job.waitingFor.join(', ')} · ` : '';
        const got = view.unread
          ? `${plural(view.unread, 'message')} waiting · `
          : view.messages
            ? `${plural(view.messages, 'message')} · `
            : '';
        const full = `${index === selected ? '›' : ' '} ${c[0]!.padEnd(widths[0]!)}  ${c[1]!.padEnd(widths[1]!)}  ${c[2]!.padEnd(widths[2]!)}  ${c[3]!.padStart(widths[3]!)}  ${c[4]!.padStart(widths[4]!)}  ${c[5]!.padStart(widths[5]!)}  `;
        // On a narrow screen the task matters more than the figures (the opened job shows them all).
        const fixed =
          inner - full.length >= MIN_TASK
            ? full
            : `${index === selected ? '›' : ' '} ${c[0]!.padEnd(widths[0]!)}  ${c[1]!.padEnd(widths[1]!)}  ${c[3]!.padStart(widths[3]!)}  `;
        return (
          <Text key={job.id} inverse={index === selected} wrap="truncate-end" color={stateColor(job.state)}>
            {cutLine(`${fixed}${waiting}${got}${delivery}${oneLine(job.task)}`, inner)}
          </Text>
        );
      })}
      {worktreeBlock}
      <Text dimColor wrap="truncate-end">
        ↑/↓ move · Enter open · x stop · Esc back
      </Text>
    </Box>
  );
}

/** Cells of the task a row keeps before its figures give way. */
const MIN_TASK = 24;

export function stateColor(state: Job['state']): string | undefined {
  switch (state) {
    case 'running':
      return 'green';
    case 'queued':
      return 'cyan';
    case 'error':
      return 'red';
    case 'aborted':
      return 'yellow';
    case 'done':
      return undefined;
    default: {
      const unhandled: never = state;
      return unhandled;
    }
  }
}
