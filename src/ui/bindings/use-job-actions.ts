import type { Key } from 'ink';
import { useRef, useState } from 'react';
import { isEnded, type WorktreeRecord } from '../../core/index.js';
import type { DetailNote } from '../components/agent-detail.js';
import { FOCUS_IN, FOCUS_OUT, PASTE_END, PASTE_START, inputAction } from '../state/input-keys.js';
import type { JobView } from '../state/jobs.js';
import type { LineState } from '../state/line-editor.js';
import { useLineEditor } from './use-line-editor.js';

export interface JobActionsOptions {
  onStop: (id: string) => void;
  /** The user's message to a job (the path agent_send takes); true when it was sent. */
  onSend?: (id: string, text: string) => boolean;
  /** Merges or discards a job's worktree; resolves with what happened, in the core's words. */
  onWorktree?: (verb: 'merge' | 'discard', id: string) => Promise<{ content: string; isError: boolean }>;
  /** The job's worktree while it is not merged or discarded. */
  worktreeOf: (id: string) => WorktreeRecord | undefined;
  /** The note a sent message leaves (the job view's, where the chat's line is out of sight); none without it. */
  sentNote?: (opened: JobView) => string;
}

/** What an opened job's keys do, and what they leave to show. */
export interface JobActions {
  /** The message line is open. */
  composing: boolean;
  /** Its text and cursor. */
  line: LineState;
  /** What the last key said (a refusal, a merge's outcome). */
  note?: DetailNote;
  /** The message line's text as of the last key, before React renders it. */
  draft: () => { open: boolean; text: string };
  /** A key while the message line is open: text, except Enter (send) and Esc (cancel). */
  messageKey: (opened: JobView, input: string, key: Key) => void;
  /** A key while it is closed: Enter opens it, x stops, m merges, d twice discards. */
  jobKey: (opened: JobView, input: string, key: Key) => void;
  /** Closes the message line and clears the note (a job opened or left). */
  reset: () => void;
}

/**
 * The keys of one opened job (in /agents and in the job view): they act at once — x stops,
 * m merges its worktree, d twice discards it — and Enter opens a message line where every key
 * is text, Enter sends it to the job as from the user and Esc cancels. So a message that
 * starts with x, m or d is never taken for a key.
 */
export function useJobActions({ onStop, onSend, onWorktree, worktreeOf, sentNote }: JobActionsOptions): JobActions {
  const [composing, setComposing] = useState(false);
  const [note, setNote] = useState<DetailNote | undefined>(undefined);
  const message = useLineEditor();
  // Mirrors of the state for the key handler: keys that arrive in one chunk all reach the
  // handler of the same render, so each must see the previous key's effect.
  const latest = useRef({
    composing: false,
    pasting: false,
    /** `d` was pressed once on this job: a second press discards. */
    discardArmed: undefined as string | undefined,
    /** A merge or discard under way: further m/d wait for it. */
    busy: false,
  });

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

  const jobKey = (opened: JobView, input: string, key: Key) => {
    const { job } = opened;
    // The terminal's focus reports and paste markers, and control keys (the app's), are no keys of this view.
    if (key.ctrl || key.meta || [FOCUS_IN, FOCUS_OUT, PASTE_START, PASTE_END].includes(input)) return;
    const armed = latest.current.discardArmed === job.id;
    latest.current.discardArmed = undefined;
    if (key.return) {
      if (!canWrite(job)) return say({ text: `${job.id} has ended: nothing reads its input any more`, error: true });
      if (!onSend) return;
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
      if (latest.current.busy) return;
      const verb = input === 'm' ? 'merge' : 'discard';
      if (!isEnded(job.state))
        return say({ text: `${job.id} is still running: ${verb} it once it has ended (x stops it)`, error: true });
      if (verb === 'merge') return runWorktree('merge', job.id);
      if (armed) return runWorktree('discard', job.id);
      say({ text: `press d again to discard ${job.id}'s worktree and branch: its changes are lost`, error: true });
      latest.current.discardArmed = job.id;
      return;
    }
    // Any other text: the message line is opened with Enter, so a typed letter is never a surprise stop or merge.
    if (input && canWrite(job) && onSend)
      say({
        text:
          job.kind === 'shell' ? `press Enter to write a line to ${job.id}'s input` : `press Enter to write ${job.id} a message`,
      });
  };

  const messageKey = (opened: JobView, input: string, key: Key) => {
    if (key.escape && !latest.current.pasting) return compose(false);
    const action = inputAction(input, key, { line: message.current(), menuOpen: false, pasting: latest.current.pasting });
    const send = () => {
      const text = message.current().text;
      if (!text.trim()) return say({ text: 'the message is empty: type what the sub-agent should do', error: true });
      if (onSend?.(opened.job.id, text)) {
        compose(false);
        say(sentNote ? { text: sentNote(opened) } : undefined);
      }
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
        return;
      default:
        return;
    }
  };

  return {
    composing,
    line: message.line,
    note,
    draft: () => ({ open: latest.current.composing, text: message.current().text }),
    messageKey,
    jobKey,
    reset: () => {
      compose(false);
      say(undefined);
    },
  };
}

/** A sub-agent takes a message in any state (an ended one is resumed); a shell, a line on its stdin while it runs. */
export function canWrite(job: Pick<JobView['job'], 'kind' | 'state'>): boolean {
  return job.kind !== 'shell' || !isEnded(job.state);
}
