import { Box, Text } from 'ink';
import { useEffect, useSyncExternalStore } from 'react';
import { isEnded, type WorktreeRecord } from '../../core/index.js';
import type { PendingApproval } from '../approval-broker.js';
import type { Clock } from '../clock.js';
import { cutLine, lineLength } from '../format.js';
import { canWrite, useJobActions } from '../bindings/use-job-actions.js';
import { type ChangesOf, useJobChanges } from '../bindings/use-job-changes.js';
import { useKeys } from '../bindings/use-keys.js';
import { type HeaderLine, jobHeaderLines, jobTitle, worktreeText } from '../state/job-header.js';
import type { JobBody, JobViewStore } from '../state/job-view-store.js';
import type { JobView } from '../state/jobs.js';
import { toolAction } from '../state/tool-text.js';
import { MessageLine } from './agent-detail.js';
import { messagesText, shortBranch, stateColor } from './agents-list.js';

export interface JobScreenProps {
  /** The opened job's transcript and the window of it in view. */
  body: JobViewStore;
  view: JobView;
  now: number;
  width: number;
  /** The terminal's rows (Infinity when unknown): the view takes all but one. */
  height: number;
  clock: Clock;
  /** Its worktree while not merged or discarded (an isolated job). */
  worktree?: WorktreeRecord;
  /** Counts what its worktree changes now. */
  changesOf?: ChangesOf;
  /** Dollars it has spent; undefined when the price is unknown. */
  cost?: number;
  /** Approval requests waiting (the main screen answers them). */
  pending?: readonly PendingApproval[];
  /** The app's own line (a key waiting for its second press). */
  message?: string;
  onStop: (id: string) => void;
  onSend?: (id: string, text: string) => boolean;
  onWorktree?: (verb: 'merge' | 'discard', id: string) => Promise<{ content: string; isError: boolean }>;
  /** Esc: back to /agents (the main screen, drawn as it was). */
  onClose: () => void;
  root?: string;
}

/** Rows when the terminal does not say. */
const UNKNOWN_ROWS = 40;
/** Lines of a note shown at most (a merge's conflicts). */
const NOTE_LINES = 4;
/** The body keeps at least this many lines; the header gives way first. */
const BODY_MIN = 3;

/** The view's height on a terminal of `rows` (Infinity when unknown): all rows but one (see live-layout.ts). */
function viewHeight(rows: number): number {
  return Math.max(6, (Number.isFinite(rows) ? rows : UNKNOWN_ROWS) - 1);
}

/** The body's height before the header is known (the view draws for its own once shown): the usual header. */
export function estimatedBodyHeight(rows: number): number {
  return Math.max(BODY_MIN, viewHeight(rows) - 9);
}

/**
 * One job, full screen: a header (state, model, task, what it used against its caps, what it
 * does now, its worktree's changes), its whole transcript drawn as the main chat draws it and
 * scrolled line by line (PgUp/PgDn, ↑/↓, End or G back to the live end, which it follows), and
 * a footer with its message line and keys. The main conversation goes on behind it; a waiting
 * approval shows as a banner, answered on the main screen (Esc).
 */
export function JobScreen(props: JobScreenProps) {
  const { body: store, view, now, width, clock, worktree, pending = [], message, onClose, root } = props;
  const { job } = view;
  const body = useSyncExternalStore(store.subscribe, store.snapshot);
  const actions = useJobActions({
    onStop: props.onStop,
    onSend: props.onSend,
    onWorktree: props.onWorktree,
    worktreeOf: (id) => (id === job.id ? worktree : undefined),
    sentNote: sentWords,
  });
  const changes = useJobChanges(props.changesOf, job, worktree !== undefined);
  const total = viewHeight(props.height);
  const ended = isEnded(job.state);

  const banner = pending[0] ? approvalBanner(pending, root) : undefined;
  const noteLines = actions.note ? capLines(actions.note.text.split('\n'), NOTE_LINES) : [];
  const hint =
    message ?? keyHint(view, { composing: actions.composing, worktree: worktree !== undefined, canSend: !!props.onSend, width });
  // Title, two rules, the message line and the hint are always there.
  const footer = 5 + (banner ? 1 : 0) + noteLines.length;
  const header = jobHeaderLines(view, {
    now,
    width,
    cost: props.cost,
    root,
    messages: messagesText(view),
    ...(worktree ? { worktree: worktreeText(worktree, changes.changes, job, shortBranch(worktree.branch), changes.error) } : {}),
  }).slice(0, Math.max(0, total - footer - BODY_MIN));
  const bodyHeight = Math.max(1, total - footer - header.length);

  // The store draws lines for its size outside renders: a new size is handed over on the next tick.
  useEffect(() => {
    const size = store.size();
    if (size.width === width && size.height === bodyHeight) return undefined;
    const handle = clock.setTimeout(() => store.resize(width, bodyHeight), 0);
    return () => clock.clearTimeout(handle);
  }, [store, clock, width, bodyHeight]);

  useKeys((input, key) => {
    const draft = actions.draft();
    const empty = !draft.open || draft.text === '';
    if (key.pageUp) return store.page(1);
    if (key.pageDown) return store.page(-1);
    if (key.end) return store.follow();
    if (key.upArrow && empty) return store.scroll(1);
    if (key.downArrow && empty) return store.scroll(-1);
    if (draft.open) return actions.messageKey(view, input, key);
    if (key.escape) return onClose();
    if (key.home || input === 'g') return store.top();
    if (input === 'G') return store.follow();
    return actions.jobKey(view, input, key);
  });

  const lines = fitted(body, bodyHeight);
  return (
    <Box flexDirection="column" width={width}>
      {banner ? (
        <Text color="yellow" wrap="truncate-end">
          {cutLine(banner, width)}
        </Text>
      ) : null}
      <Text wrap="truncate-end">
        <Text bold>{job.id}</Text>
        {` · ${job.definition} · `}
        <Text color={stateColor(job.state)}>{cutLine(jobTitle(job, now), Math.max(1, width - job.id.length - 6))}</Text>
      </Text>
      {header.map((line, i) => (
        <HeaderText key={`h${i}`} line={line} />
      ))}
      <Text dimColor wrap="truncate-end">
        {rule(body.atTop ? 'transcript' : 'transcript · ↑ more above', width)}
      </Text>
      <Box flexDirection="column" height={bodyHeight}>
        {lines.map((line, i) => (
          <Text key={i} wrap="truncate-end">
            {line === '' ? ' ' : line}
          </Text>
        ))}
      </Box>
      <Text dimColor={body.offset === 0} color={body.unseen > 0 ? 'cyan' : undefined} wrap="truncate-end">
        {rule(belowText(body, ended), width)}
      </Text>
      {noteLines.map((text, i) => (
        <Text key={`n${i}`} color={actions.note?.error ? 'yellow' : 'green'} wrap="truncate-end">
          {cutLine(text, width)}
        </Text>
      ))}
      {actions.composing ? (
        <MessageLine line={actions.line} width={width} />
      ) : (
        <Text dimColor wrap="truncate-end">
          {cutLine(
            props.onSend && canWrite(job) ? `› Enter to write ${job.id} a message` : `› ${job.id} takes no messages here`,
            width,
          )}
        </Text>
      )}
      <Text dimColor wrap="truncate-end">
        {cutLine(hint, width)}
      </Text>
    </Box>
  );
}

function HeaderText({ line }: { line: HeaderLine }) {
  return (
    <Text color={line.color} dimColor={line.dim} wrap="truncate-end">
      {line.text}
    </Text>
  );
}

/** The lines in view, exactly `height` of them: until the store has drawn for a new height, cut or padded. */
function fitted(body: JobBody, height: number): string[] {
  const lines =
    body.lines.length > height ? (body.offset === 0 ? body.lines.slice(-height) : body.lines.slice(0, height)) : [...body.lines];
  while (lines.length < height) lines.push('');
  return lines;
}

/** `── transcript ───────`: a rule across the screen with a label. */
function rule(label: string, width: number): string {
  const head = `── ${label} `;
  return cutLine(`${head}${'─'.repeat(Math.max(0, width - head.length))}`, width);
}

/** What the rule under the transcript says: following the live end, or how to get back to it. */
function belowText(body: JobBody, ended: boolean): string {
  if (body.offset === 0) return ended ? 'end' : 'following live';
  const unseen = body.unseen > 0 ? `${body.unseen} new line${body.unseen === 1 ? '' : 's'} below` : 'more below';
  return `↓ ${unseen} · End or G follows`;
}

/** `! approval waiting: bash npm test for sub-2 · Esc to answer it`. */
function approvalBanner(pending: readonly PendingApproval[], root: string | undefined): string {
  const { request } = pending[0]!;
  const what = toolAction(request.toolName, request.args, request.label, root);
  const more = pending.length > 1 ? ` (+${pending.length - 1} more)` : '';
  return `! approval waiting: ${what}${request.jobId ? ` for ${request.jobId}` : ''}${more} · Esc to answer it`;
}

/** The keys that do something for this job now, and only those: in words when they fit, else short. */
function keyHint(view: JobView, state: { composing: boolean; worktree: boolean; canSend: boolean; width: number }): string {
  const { job } = view;
  if (state.composing) return `Enter send to ${job.id} · Esc cancel · PgUp/PgDn scroll`;
  const ended = isEnded(job.state);
  const keys: [long: string, short: string][] = [
    ...(state.canSend && canWrite(job) ? [['Enter write a message', 'Enter message'] as [string, string]] : []),
    ['↑/↓ PgUp/PgDn scroll · End follow', '↑↓ PgUp PgDn · End'],
    ...(ended ? [] : [['x stop', 'x stop'] as [string, string]]),
    ...(state.worktree && ended ? [['m merge · d twice discard', 'm merge · d×2 discard'] as [string, string]] : []),
    ['Esc back', 'Esc back'],
  ];
  const long = keys.map(([words]) => words).join(' · ');
  return lineLength(long) <= state.width ? long : keys.map(([, short]) => short).join(' · ');
}

/** What sending did, by the job's state when it was sent (the manager's rule: inbox, task, or a resumed run). */
function sentWords({ job }: JobView): string {
  if (job.state === 'queued') return `added to ${job.id}'s task: it has not started yet`;
  if (isEnded(job.state)) return `sent: ${job.id} runs again with your message`;
  return `sent to ${job.id}: it reads it at its next step`;
}

/** At most `n` lines, the last saying how many more there were. */
function capLines(lines: readonly string[], n: number): string[] {
  return lines.length <= n ? [...lines] : [...lines.slice(0, n - 1), `… ${lines.length - n + 1} more lines`];
}
