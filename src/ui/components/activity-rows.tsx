import { Box, Text } from 'ink';
import type { Job } from '../../core/index.js';
import { formatRow, rowHead, shownRows, stalledFor } from '../state/activity-rows.js';
import { cutStyled } from '../state/styled-line.js';
import type { JobView } from '../state/jobs.js';
import { lineLength } from '../format.js';

export interface ActivityRowsProps {
  /** The jobs still queued or running, by job number. */
  jobs: readonly JobView[];
  now: number;
  width: number;
  /** Jobs waiting for the user's approval, with what they ask: their row says so. */
  waiting?: ReadonlyMap<string, string>;
  /** Lines the rows may take; past it the last line counts the rest (`+5 more running`). */
  maxLines?: number;
  /** A job's cost so far (undefined when the price is unknown). */
  costOf?: (view: JobView) => number | undefined;
  /** The workspace root: paths are shown relative to it. */
  root?: string;
  /** Lines a status command printed for jobs (`subagentStatusLine`): each replaces its row's detail. */
  custom?: ReadonlyMap<string, string>;
  /** The colour of a job's id, from its agent file's `color:`. */
  colorOf?: (view: JobView) => string | undefined;
}

/** The share of a cap at which a job's row turns the warning colour. */
export const NEAR_CAP = 0.8;

/**
 * A row's colour: the warning colour while it waits for an approval, once its subtree used 80 % of
 * a cap, or while it is stalled (`now` given: no event for a minute).
 */
export function rowColor(
  job: Partial<Pick<Job, 'budgetUsed' | 'state' | 'kind' | 'lastEventAt'>>,
  asks: string | undefined,
  now?: number,
): 'yellow' | undefined {
  const stalled = now !== undefined && job.state !== undefined && stalledFor({ ...job, state: job.state }, now) !== undefined;
  return asks !== undefined || (job.budgetUsed ?? 0) >= NEAR_CAP || stalled ? 'yellow' : undefined;
}

/** One line per running sub-agent, in job-number order, each cut to the terminal width. */
export function ActivityRows(props: ActivityRowsProps) {
  const { jobs, now, width, waiting, maxLines = Number.MAX_SAFE_INTEGER, costOf, root, custom, colorOf } = props;
  if (jobs.length === 0 || maxLines <= 0) return null;
  const shown = shownRows(jobs, maxLines);
  const collapsed = shown.length < jobs.length;
  return (
    <Box flexDirection="column">
      {shown.map((view) => {
        const asks = waiting?.get(view.job.id);
        // A waiting approval says so over the status command's line.
        const own = asks === undefined ? custom?.get(view.job.id) : undefined;
        const head = own ? rowHead(view.job) : '';
        const line = own
          ? `${head}${cutStyled(own, width - lineLength(head))}`
          : formatRow(view, now, width, {
              instead: asks ? `waiting for approval: ${asks}` : undefined,
              cost: costOf?.(view),
              root,
            });
        // A row starts with its head (the id): that part takes the agent's colour.
        const color = colorOf?.(view);
        const id = color ? rowHead(view.job) : '';
        return (
          <Text key={view.job.id} wrap="truncate-end" color={rowColor(view.job, asks, now)}>
            {color && line.startsWith(id) ? (
              <>
                <Text color={color}>{id}</Text>
                {line.slice(id.length)}
              </>
            ) : (
              line
            )}
          </Text>
        );
      })}
      {collapsed ? (
        <Text dimColor wrap="truncate-end">
          {moreLine(jobs.slice(shown.length))}
        </Text>
      ) : null}
    </Box>
  );
}

/** `+5 more running`, or `+5 more (3 running, 2 queued)`. */
export function moreLine(rest: readonly JobView[]): string {
  const running = rest.filter((view) => view.job.state === 'running').length;
  const queued = rest.length - running;
  if (queued === 0) return `+${rest.length} more running`;
  if (running === 0) return `+${rest.length} more queued`;
  return `+${rest.length} more (${running} running, ${queued} queued)`;
}
