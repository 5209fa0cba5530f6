import { type StatusLineOptions, useJobStatusLines } from '../bindings/use-status-lines.js';
import { shownRows } from '../state/activity-rows.js';
import { ActivityRows, type ActivityRowsProps } from './activity-rows.js';

export interface JobStatusRowsProps extends ActivityRowsProps {
  /** Where the `subagentStatusLine` command comes from and reports to. */
  status: StatusLineOptions;
}

/** The activity rows, each row on screen with its `subagentStatusLine` line when one is configured. */
export function JobStatusRows({ status, ...rows }: JobStatusRowsProps) {
  const custom = useJobStatusLines({ ...status, shown: shownRows(rows.jobs, rows.maxLines) });
  return <ActivityRows {...rows} custom={custom} />;
}
