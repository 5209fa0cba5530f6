import { Box, Text } from 'ink';
import { oneLine } from '../../core/text.js';
import { cutLine } from '../format.js';
import { deliveryText, jobFigures } from '../state/job-status.js';
import { type JobView, describeActivity } from '../state/jobs.js';
import { wrapCells } from '../text-cells.js';
import { stateColor } from './agents-list.js';

export interface AgentDetailProps {
  view: JobView;
  now: number;
  width: number;
  /** Lines the view may take, border included: the result and the transcript tail give way. */
  maxLines?: number;
  /** The workspace root: paths are shown relative to it. */
  root?: string;
}

/** Lines of a result shown before it is cut, with room to spare. */
const RESULT_LINES = 15;
/** Lines of the task shown at most. */
const TASK_LINES = 3;

type Line = { text: string; color?: string; dim?: boolean; bold?: boolean };

/** One job: its task, what it does now, its result or error, and the tail of its transcript. */
export function AgentDetail({ view, now, width, maxLines = Number.MAX_SAFE_INTEGER, root }: AgentDetailProps) {
  const { job, tail } = view;
  const inner = Math.max(1, width - 4);
  const ended = job.state === 'done' || job.state === 'error' || job.state === 'aborted';
  const head: Line[] = [];
  const task = wrapCells(`Task: ${job.task}`, inner);
  head.push(
    ...task
      .slice(0, TASK_LINES)
      .map((text, i) => ({ text: i === TASK_LINES - 1 && task.length > TASK_LINES ? cutLine(`${text} …`, inner) : text })),
  );
  if (!ended) head.push({ text: cutLine(`Now: ${oneLine(describeActivity(view.activity, job.state, root))}`, inner) });
  if (job.error) head.push({ text: cutLine(`Error: ${oneLine(job.error)}`, inner), color: 'red' });
  const delivery = ended ? deliveryText(view) : undefined;
  if (delivery) head.push({ text: `Parent: ${delivery}`, dim: true });

  const resultAll = ended && job.result ? job.result.split('\n').map((line) => cutLine(line, inner)) : [];
  const tailAll =
    tail.length === 0
      ? [{ text: '  no messages yet', dim: true }]
      : tail.map((line) => ({ text: cutLine(`  ${line}`, inner), dim: true }));
  // Border (2), the title line, the transcript heading and the key hint are always there.
  const fixed = 5 + head.length + (resultAll.length ? 1 : 0);
  const room = Math.max(0, maxLines - fixed);
  const resultRoom = Math.min(resultAll.length, RESULT_LINES, resultAll.length && room > 1 ? Math.ceil(room / 2) : room);
  const result: Line[] = cap(resultAll, resultRoom).map((text) => ({ text }));
  const tailLines = cap(tailAll, Math.max(0, room - result.length), 'tail');

  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text wrap="truncate-end">
        <Text bold>{job.id}</Text>
        {` · ${job.definition} · `}
        <Text color={stateColor(job.state)}>{jobFigures(job, now)}</Text>
      </Text>
      {head.map((line, i) => (
        <Text key={`h${i}`} color={line.color} dimColor={line.dim} wrap="truncate-end">
          {line.text}
        </Text>
      ))}
      {resultAll.length ? <Text bold>Result:</Text> : null}
      {result.map((line, i) => (
        <Text key={`r${i}`} wrap="truncate-end">
          {line.text}
        </Text>
      ))}
      <Text bold>Transcript (latest messages):</Text>
      {tailLines.map((line, i) => (
        <Text key={`t${i}`} dimColor wrap="truncate-end">
          {typeof line === 'string' ? line : line.text}
        </Text>
      ))}
      <Text dimColor>{ended ? 'Esc back' : 'x stop · Esc back'}</Text>
    </Box>
  );
}

/** At most `n` of `items`, the last slot saying how many more there are when some are left out. */
function cap<T extends string | Line>(items: readonly T[], n: number, keep: 'head' | 'tail' = 'head'): (T | string)[] {
  if (items.length <= n) return [...items];
  if (n <= 0) return [];
  const more = `  … ${items.length - n + 1} more lines`;
  return keep === 'head' ? [...items.slice(0, n - 1), more] : [more, ...items.slice(items.length - n + 1)];
}
