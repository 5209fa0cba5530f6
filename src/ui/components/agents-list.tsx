import { Box, Text } from 'ink';
import type { Job } from '../../core/agents/job-manager.js';
import { totalTokens } from '../../core/loop/limits.js';
import { formatTokens, oneLine } from '../../core/text.js';
import { cutLine, plural } from '../format.js';
import { elapsedOf } from '../state/job-status.js';

export interface AgentsListProps {
  jobs: readonly Job[];
  selected: number;
  now: number;
  width: number;
}

/** Every job of the session: id, state, definition, label, elapsed, tokens, tool calls. */
export function AgentsList({ jobs, selected, now, width }: AgentsListProps) {
  if (jobs.length === 0) {
    return (
      <Box flexDirection="column" borderStyle="round" paddingX={1}>
        <Text bold>Sub-agents</Text>
        <Text dimColor>No sub-agents have been started in this session.</Text>
        <Text dimColor>Esc back</Text>
      </Box>
    );
  }
  const cells = jobs.map((job) => [
    // Nested jobs sit indented under their owner.
    `${'  '.repeat((job.depth ?? 1) - 1)}${job.id}`,
    job.state,
    job.definition,
    elapsedOf(job, now),
    `${formatTokens(totalTokens(job.usage))} tok`,
    plural(job.toolCalls, 'tool'),
  ]);
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  const inner = width - 4;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{`Sub-agents (${jobs.length})`}</Text>
      {jobs.map((job, index) => {
        const c = cells[index]!;
        const fixed = `${index === selected ? '›' : ' '} ${c[0]!.padEnd(widths[0]!)}  ${c[1]!.padEnd(widths[1]!)}  ${c[2]!.padEnd(widths[2]!)}  ${c[3]!.padStart(widths[3]!)}  ${c[4]!.padStart(widths[4]!)}  ${c[5]!.padStart(widths[5]!)}  `;
        return (
          <Text key={job.id} inverse={index === selected} wrap="truncate-end" color={stateColor(job.state)}>
            {cutLine(`${fixed}${oneLine(job.task)}`, inner)}
          </Text>
        );
      })}
      <Text dimColor>↑/↓ move · Enter open · x stop · Esc back</Text>
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
