import { useRef, useState } from 'react';
import { isEnded, type WorktreeRecord } from '../../core/index.js';
import { useKeys } from '../bindings/use-keys.js';
import { useLineEditor } from '../bindings/use-line-editor.js';
import { FOCUS_IN, FOCUS_OUT, PASTE_END, PASTE_START, inputAction } from '../state/input-keys.js';
import type { JobView } from '../state/jobs.js';
import { AgentDetail, type DetailNote } from './agent-detail.js';
import { AgentsList } from './agents-list.js';

export interface AgentsViewProps {
  /** Every job, by job number. */
  jobs: readonly JobView[];
  now: number;
  width: number;
  active: boolean;
  onStop: (id: string) => void;
  onClose: () => void;
  /** The user's message to a job (the path agent_send takes); true when it was sent. */
  onSend?: (id: string, text: string) => boolean;
  /** Merges or discards a job's worktree; resolves with what happened, in the core's words. */
  onWorktree?: (verb: 'merge' | 'discard', id: string) => Promise<{ content: string; isError: boolean }>;
  /** Isolated jobs' worktrees not yet merged or discarded. */
  worktrees?: readonly WorktreeRecord[];
  /** Lines the view may take, border included. */
  maxLines?: number;
  /** The workspace root: paths are shown relative to it. */
  root?: string;
}

/**
 * /agents: the list, and one job opened from it. In the list ↑/↓ move, Enter opens, x stops,
 * Esc closes. In a job, keys act at once — x stops, m merges its worktree, d twice discards
 * it, Esc goes back — and Enter opens a message line: there every key is text, Enter sends it
 * to the job as from the user, Esc cancels. So a message that starts with x, m or d is never
 * taken for a key.
 */
export function AgentsView({
  jobs,
  now,
  width,
  active,
  onStop,
  onClose,
  onSend,
  onWorktree,
  worktrees = [],
  maxLines,
  root,
}: AgentsViewProps) {
  const [selected, setSelected] = useState(0);
  const [openId, setOpenId] = useState<string | undefined>(undefined);
  const [composing, setComposing] = useState(false);
  const [note, setNote] = useState<DetailNote | undefined>(undefined);
  const message = useLineEditor();
  // Mirrors of the state for the key handler: keys that arrive in one chunk ("↓⏎") all reach
  // the handler of the same render, so each must see the previous key's effect.
  const latest = useRef({
    selected: 0,
    openId: undefined as string | undefined,
    composing: false,
    pasting: false,
    /** `d` was pressed once on this job: a second press discards. */
    discardArmed: undefined as string | undefined,
    /** A merge or discard under way: further m/d wait for it. */
    busy: false,
  });
  const last = Math.max(0, jobs.length - 1);
  const index = Math.min(selected, last);
  const find = (id: string | undefined) => (id === undefined ? undefined : jobs.find((view) => view.job.id === id));
  const open = find(openId);
  const worktreeOf = (id: string) => worktrees.find((record) => record.jobId === id);

  const select = (next: number) => {
    latest.current.selected = Math.max(0, Math.min(last, next));
    setSelected(latest.current.selected);
  };
  const compose = (on: boolean) => {
    latest.current.composing = on;
    latest.current.pasting = false;
    setComposing(on);
    message.set('');
  };
  const say = (next: DetailNote | undefined) => {
    latest.current.discardArmed = undefined;
    setNote(next);
  };
  const openJob = (id: string | undefined) => {
    latest.current.openId = id;
    setOpenId(id);
    compose(false);
    say(undefined);
  };

  const runWorktree = (verb: 'merge' | 'discard', id: string) => {
    if (!onWorktree) return;
    latest.current.busy = true;
    say({ text: verb === 'merge' ? `merging ${id} into the checkout…` : `discarding ${id}'s worktree…` });
    void onWorktree(verb, id)
      .then(
        (done) => say({ text: done.content, error: done.isError }),
        (error: unknown) => say({ text: error instanceof Error ? error.message : String(error), error: true }),
      )
      .finally(() => {
        latest.current.busy = false;
      });
  };

  /** A key in an opened job while its message line is closed. */
  const jobKey = (opened: JobView, input: string, key: { return: boolean; ctrl: boolean; meta: boolean }) => {
    const { job } = opened;
    // The terminal's focus reports and paste markers, and control keys (the app's), are no keys of this view.
    if (key.ctrl || key.meta || [FOCUS_IN, FOCUS_OUT, PASTE_START, PASTE_END].includes(input)) return undefined;
    const armed = latest.current.discardArmed === job.id;
    latest.current.discardArmed = undefined;
    if (key.return) {
      if (!canWrite(job)) return say({ text: `${job.id} has ended: nothing reads its input any more`, error: true });
      if (!onSend) return undefined;
      say(undefined);
      return compose(true);
    }
    if (input === 'x') {
      if (isEnded(job.state)) return say({ text: `${job.id} has already ended`, error: true });
      say(undefined);
      return onStop(job.id);
    }
    const worktree = worktreeOf(job.id);
    if ((input === 'm' || input === 'd') && worktree && onWorktree) {
      if (latest.current.busy) return undefined;
      const verb = input === 'm' ? 'merge' : 'discard';
      if (!isEnded(job.state))
        return say({ text: `${job.id} is still running: ${verb} it once it has ended (x stops it)`, error: true });
      if (verb === 'merge') return runWorktree('merge', job.id);
      if (armed) return runWorktree('discard', job.id);
      say({ text: `press d again to discard ${job.id}'s worktree and branch: its changes are lost`, error: true });
      latest.current.discardArmed = job.id;
      return undefined;
    }
    // Any other text: the message line is opened with Enter, so a typed letter is never a surprise stop or merge.
    if (input && canWrite(job) && onSend)
      return say({
        text:
          job.kind === 'shell' ? `press Enter to write a line to ${job.id}'s input` : `press Enter to write ${job.id} a message`,
      });
    return undefined;
  };

  /** A key while the message line is open: it is text, except Enter (send) and Esc (cancel). */
  const messageKey = (opened: JobView, input: string, key: Parameters<typeof inputAction>[1]) => {
    if (key.escape && !latest.current.pasting) return compose(false);
    const action = inputAction(input, key, { line: message.current(), menuOpen: false, pasting: latest.current.pasting });
    const send = () => {
      const text = message.current().text;
      if (!text.trim()) return say({ text: 'the message is empty: type what the sub-agent should do', error: true });
      if (onSend?.(opened.job.id, text)) {
        compose(false);
        say(undefined);
      }
      return undefined;
    };
    switch (action.type) {
      case 'edit':
        return message.edit(action.edit);
      case 'submit':
        return send();
      case 'insertThenSubmit':
        message.edit({ type: 'insert', text: action.text });
        return send();
      case 'paste':
        latest.current.pasting = action.action === 'start';
        return undefined;
      default:
        return undefined;
    }
  };

  useKeys(
    (input, key) => {
      const current = Math.min(latest.current.selected, last);
      const opened = find(latest.current.openId);
      if (opened && latest.current.composing) return messageKey(opened, input, key);
      if (key.escape) return opened ? openJob(undefined) : onClose();
      if (opened) return jobKey(opened, input, key);
      if (key.upArrow) return select(current - 1);
      if (key.downArrow) return select(current + 1);
      if (key.return && jobs[current]) return openJob(jobs[current]!.job.id);
      const target = jobs[current]?.job;
      if (input === 'x' && target && !isEnded(target.state)) onStop(target.id);
      return undefined;
    },
    { isActive: active },
  );

  if (open)
    return (
      <AgentDetail
        view={open}
        now={now}
        width={width}
        maxLines={maxLines}
        root={root}
        worktree={worktreeOf(open.job.id)}
        message={composing ? message.line : undefined}
        canMessage={onSend !== undefined && canWrite(open.job)}
        note={note}
      />
    );
  return <AgentsList jobs={jobs} selected={index} now={now} width={width} maxLines={maxLines} worktrees={worktrees} />;
}

/** A sub-agent takes a message in any state (an ended one is resumed); a shell, a line on its stdin while it runs. */
function canWrite(job: Pick<JobView['job'], 'kind' | 'state'>): boolean {
  return job.kind !== 'shell' || !isEnded(job.state);
}
