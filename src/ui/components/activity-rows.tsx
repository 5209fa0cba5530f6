import { Box, Text } from 'ink';
import { formatRow } from '../state/activity-rows.js';
import type { JobView } from '../state/jobs.js';

export interface ActivityRowsProps {
  /** The jobs still queued or running, by job number. */
  jobs: readonly JobView[];
  now: number;
  width: number;
  /** Jobs waiting for the user's approval, with what they ask: their row says so. */
  waiting?: ReadonlyMap<string, string>;
}

/** One line per running sub-agent, in job-number order, each cut to the terminal width. */
export function ActivityRows({ jobs, now, width, waiting }: ActivityRowsProps) {
  if (jobs.length === 0) return null;
  return (
    <Box flexDirection="column">
      {jobs.map((view) => {
        const asks = waiting?.get(view.job.id);
        return (
          <Text key={view.job.id} wrap="truncate-end" color={asks ? 'yellow' : undefined}>
            {formatRow(view, now, width, asks ? `waiting for approval: ${asks}` : undefined)}
          </Text>
        );
      })}
    </Box>
  );
}
