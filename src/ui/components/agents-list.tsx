import { Box, Text } from 'ink';
import type { Job } from '../../core/agents/job-manager.js';
import { totalTokens } from '../../core/loop/limits.js';
import { formatTokens, oneLine } from '../../core/text.js';
import { cutLine, plural } from '../format.js';
import { deliveryText, elapsedOf, stateLabel } from '../state/job-status.js';
import type { JobView } from '../state/jobs.js';

export interface AgentsListProps {
  jobs: readonly JobView[];
  selected: number;
  now: number;
  width: number;
  /** Lines the list may take, border included: past it, a window of jobs around the selection. */
  maxLines?: number;
}

/** Every job of the session: id, state, definition, label, elapsed, tokens, tool calls. */
export function AgentsList({ jobs, selected, now, width, maxLines = Number.MAX_SAFE_INTEGER }: AgentsListProps) {
  if (jobs.length === 0) {
    return (
      <Box flexDirection="column" borderStyle="round" paddingX={1}>
        <Text bold>Sub-agents</Text>
        <Text dimColor>No sub-agents have been started in this session.</Text>
        <Text dimColor>Esc back</Text>
      </Box>
    );
  }
  const cells = jobs.map(({ job }) => [
    // Nested jobs sit indented under their owner.
    `${'  '.repeat((job.depth ?? 1) - 1)}${job.id}`,
    stateLabel(job.state),
    job.definition,
    elapsedOf(job, now),
    `${formatTokens(totalTokens(job.usage))} tok`,
    plural(job.toolCalls, 'tool'),
  ]);
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  const inner = width - 4;
  // Border, title and key hint take four lines; the rest is a window that keeps the selection in view.
  const room = Math.max(1, maxLines - 4);
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
        const fixed = `${index === selected ? '›' : ' '} ${c[0]!.padEnd(widths[0]!)}  ${c[1]!.padEnd(widths[1]!)}  ${c[2]!.padEnd(widths[2]!)}  ${c[3]!.padStart(widths[3]!)}  ${c[4]!.padStart(widths[4]!)}  ${c[5]!.padStart(widths[5]!)}  `;
        return (
          <Text key={job.id} inverse={index === selected} wrap="truncate-end" color={stateColor(job.state)}>
            {cutLine(`${fixed}${delivery}${oneLine(job.task)}`, inner)}
          </Text>
        );
      })}
      <Text dimColor wrap="truncate-end">
        ↑/↓ move · Enter open · x stop · Esc back
      </Text>
    </Box>
  );
}

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
