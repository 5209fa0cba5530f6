import { Box, Text } from 'ink';
import { isEnded, oneLine, type WorktreeRecord } from '../../core/index.js';
import { cutLine, lineLength } from '../format.js';
import { deliveryText, jobFigures } from '../state/job-status.js';
import { tailText } from '../state/job-tail.js';
import { type JobView, describeActivity } from '../state/jobs.js';
import type { LineState } from '../state/line-editor.js';
import { wrapCells } from '../text-cells.js';
import { messagesText, stateColor, worktreeText } from './agents-list.js';

/** A line the view says about the last key: a refusal, a merge's outcome (its conflicting files included). */
export interface DetailNote {
  text: string;
  error?: boolean;
}

export interface AgentDetailProps {
  view: JobView;
  now: number;
  width: number;
  /** Lines the view may take, border included: the result and the transcript tail give way. */
  maxLines?: number;
  /** The workspace root: paths are shown relative to it. */
  root?: string;
  /** Its worktree, while not merged or discarded (an isolated job). */
  worktree?: WorktreeRecord;
  /** The message line while it is open. */
  message?: LineState;
  /** Enter opens a message line (a sub-agent, or a running shell's stdin, where sending is wired). */
  canMessage?: boolean;
  note?: DetailNote;
}

/** Lines of a note shown at most (a merge's conflicts). */
const NOTE_LINES = 6;

/** Lines of a result shown before it is cut, with room to spare. */
const RESULT_LINES = 15;
/** Lines of the task shown at most. */
const TASK_LINES = 3;

type Line = { text: string; color?: string; dim?: boolean; bold?: boolean };

/** One job: its task, what it does now, its result or error, and the tail of its transcript. */
export function AgentDetail({
  view,
  now,
  width,
  maxLines = Number.MAX_SAFE_INTEGER,
  root,
  worktree,
  message,
  canMessage = false,
  note,
}: AgentDetailProps) {
  const { job, tail } = view;
  const inner = Math.max(1, width - 4);
  const ended = isEnded(job.state);
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
  const messages = messagesText(view);
  if (messages) head.push({ text: cutLine(`Messages: ${messages}`, inner), color: view.unread ? 'cyan' : undefined });
  if (worktree) head.push({ text: cutLine(`Worktree: ${worktreeText(worktree, job.state)}`, inner), color: 'magenta' });
  const noteLines = note ? capLines(note.text.split('\n'), NOTE_LINES).map((text) => cutLine(text, inner)) : [];

  const resultAll = ended && job.result ? job.result.split('\n').map((line) => cutLine(line, inner)) : [];
  const tailAll =
    tail.length === 0
      ? [{ text: '  no messages yet', dim: true }]
      : tail.map((line) => ({ text: cutLine(`  ${tailText(line, root)}`, inner), dim: true }));
  // Border (2), the title line, the transcript heading and the key hint are always there.
  const fixed = 5 + head.length + (resultAll.length ? 1 : 0) + noteLines.length + (message ? 1 : 0);
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
      {noteLines.map((text, i) => (
        <Text key={`n${i}`} color={note?.error ? 'yellow' : 'green'} wrap="truncate-end">
          {text}
        </Text>
      ))}
      {message ? <MessageLine line={message} width={inner} /> : null}
      <Text dimColor wrap="truncate-end">
        {message
          ? `Enter send to ${job.id} · Esc cancel`
          : [
              canMessage ? (job.kind === 'shell' ? 'Enter write a line to its input' : 'Enter write a message') : undefined,
              ended ? undefined : 'x stop',
              worktree && ended ? 'm merge into the checkout · d twice discard' : undefined,
              'Esc back',
            ]
              .filter(Boolean)
              .join(' · ')}
      </Text>
    </Box>
  );
}

/** `› the message▌`, on one line: line breaks shown as ↵, the end kept in view. */
export function MessageLine({ line, width }: { line: LineState; width: number }) {
  const chars = Array.from(line.text.replace(/\n/g, '↵'));
  const before = chars.slice(0, line.cursor).join('');
  const at = chars[line.cursor] ?? ' ';
  const after = chars.slice(line.cursor + 1).join('');
  // Keep the cursor in view: what is before it gives way from the left.
  const room = Math.max(1, width - 3 - lineLength(at));
  const shownBefore =
    lineLength(before) > room
      ? `…${Array.from(before)
          .slice(-(room - 1))
          .join('')}`
      : before;
  return (
    <Text wrap="truncate-end">
      <Text color="cyan">{'› '}</Text>
      {shownBefore}
      <Text inverse>{at}</Text>
      {after}
    </Text>
  );
}

/** At most `n` lines, the last saying how many more there were. */
function capLines(lines: readonly string[], n: number): string[] {
  return lines.length <= n ? [...lines] : [...lines.slice(0, n - 1), `… ${lines.length - n + 1} more lines`];
}

/** At most `n` of `items`, the last slot saying how many more there are when some are left out. */
function cap<T extends string | Line>(items: readonly T[], n: number, keep: 'head' | 'tail' = 'head'): (T | string)[] {
  if (items.length <= n) return [...items];
  if (n <= 0) return [];
  const more = `  … ${items.length - n + 1} more lines`;
  return keep === 'head' ? [...items.slice(0, n - 1), more] : [more, ...items.slice(items.length - n + 1)];
}
