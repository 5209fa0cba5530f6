import { type StatusLineOptions, useJobStatusLines } from '../bindings/use-status-lines.js';
import { shownRows } from '../state/activity-rows.js';
import { agentInkColor } from '../state/agent-colors.js';
import { ActivityRows, type ActivityRowsProps } from './activity-rows.js';

export interface JobStatusRowsProps extends Omit<ActivityRowsProps, 'costOf' | 'custom' | 'colorOf'> {
  /** Where the `subagentStatusLine` command comes from and reports to; its session prices each row. */
  status: StatusLineOptions;
}

/**
 * The activity rows, each row on screen with its `subagentStatusLine` line when one is configured,
 * and its cost at its job's own model's prices (a sub-agent may run on another model than the parent).
 */
export function JobStatusRows({ status, ...rows }: JobStatusRowsProps) {
  const custom = useJobStatusLines({ ...status, shown: shownRows(rows.jobs, rows.maxLines) });
  const { session } = status;
  return (
    <ActivityRows
      {...rows}
      costOf={(view) => session.costOf(view.job.usage, view.job.id)}
      colorOf={(view) => agentInkColor(session.agentColors, view.job.definition)}
      custom={custom}
    />
  );
}
