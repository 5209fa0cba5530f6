import { Box, Text } from 'ink';
import { oneLine } from '../../core/text.js';
import { cutLine } from '../format.js';
import { jobFigures } from '../state/job-status.js';
import { type JobView, describeActivity } from '../state/jobs.js';
import { stateColor } from './agents-list.js';

export interface AgentDetailProps {
  view: JobView;
  now: number;
  width: number;
}

/** Lines of a result shown before it is cut. */
const RESULT_LINES = 15;

/** One job: its task, what it does now, its result or error, and the tail of its transcript. */
export function AgentDetail({ view, now, width }: AgentDetailProps) {
  const { job, tail } = view;
  const inner = width - 4;
  const ended = job.state === 'done' || job.state === 'error' || job.state === 'aborted';
  const resultLines = (job.result ?? '').split('\n');
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text>
        <Text bold>{job.id}</Text>
        {` · ${job.definition} · `}
        <Text color={stateColor(job.state)}>{jobFigures(job, now)}</Text>
      </Text>
      <Text>
        <Text bold>Task: </Text>
        {job.task}
      </Text>
      {!ended ? (
        <Text wrap="truncate-end">{cutLine(`Now: ${oneLine(describeActivity(view.activity, job.state))}`, inner)}</Text>
      ) : null}
      {job.error ? <Text color="red">{`Error: ${job.error}`}</Text> : null}
      {ended && job.result ? (
        <Box flexDirection="column">
          <Text bold>Result:</Text>
          <Text>{resultLines.slice(0, RESULT_LINES).join('\n')}</Text>
          {resultLines.length > RESULT_LINES ? <Text dimColor>{`… ${resultLines.length - RESULT_LINES} more lines`}</Text> : null}
        </Box>
      ) : null}
      <Text bold>Transcript (latest messages):</Text>
      {tail.length === 0 ? <Text dimColor>{'  no messages yet'}</Text> : null}
      {tail.map((line, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          {cutLine(`  ${line}`, inner)}
        </Text>
      ))}
      <Text dimColor>{ended ? 'Esc back' : 'x stop · Esc back'}</Text>
    </Box>
  );
}
