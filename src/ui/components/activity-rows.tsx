import { Box, Text } from 'ink';
import type { Job } from '../../core/agents/job-manager.js';
import { type ActivityRow, type RowMap, formatRow, orderedRows } from '../state/activity-rows.js';

export interface ActivityRowsProps {
  rows: RowMap;
  jobs: readonly Job[];
  now: number;
  width: number;
  /** Jobs waiting for the user's approval, with what they ask: their row says so. */
  waiting?: ReadonlyMap<string, string>;
}

/** One line per running sub-agent, in job-number order, each cut to the terminal width. */
export function ActivityRows({ rows, jobs, now, width, waiting }: ActivityRowsProps) {
  const ordered = orderedRows(rows);
  if (ordered.length === 0) return null;
  const byId = new Map(jobs.map((job) => [job.id, job]));
  return (
    <Box flexDirection="column">
      {ordered.map((row) => {
        const asks = waiting?.get(row.key);
        const shown: ActivityRow = asks ? { ...row, text: `waiting for approval: ${asks}` } : row;
        return (
          <Text key={row.key} wrap="truncate-end" color={asks ? 'yellow' : undefined}>
            {formatRow(shown, byId.get(row.key), now, width)}
          </Text>
        );
      })}
    </Box>
  );
}
