import { useRef, useState } from 'react';
import { isEnded, type WorktreeRecord } from '../../core/index.js';
import { canWrite, useJobActions } from '../bindings/use-job-actions.js';
import { useKeys } from '../bindings/use-keys.js';
import type { JobView } from '../state/jobs.js';
import { AgentDetail } from './agent-detail.js';
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
  /**
   * Opens a sub-agent full screen (the job view); without it, or for a shell, Enter opens the
   * job's box here.
   */
  onOpenJob?: (id: string) => void;
  /** The job selected when the list opens (the one the job view came back from). */
  selectedId?: string;
}

/**
 * /agents: the list, and one job opened from it. In the list ↑/↓ move, Enter opens, x stops,
 * Esc closes. A sub-agent opens full screen when the app has a job view (`onOpenJob`); a shell,
 * or any job without one, opens in a box here, with the keys of use-job-actions.ts and Esc back.
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
  onOpenJob,
  selectedId,
}: AgentsViewProps) {
  const initial = Math.max(0, selectedId === undefined ? 0 : jobs.findIndex((view) => view.job.id === selectedId));
  const [selected, setSelected] = useState(initial);
  const [openId, setOpenId] = useState<string | undefined>(undefined);
  // Mirrors of the state for the key handler: keys that arrive in one chunk ("↓⏎") all reach
  // the handler of the same render, so each must see the previous key's effect.
  const latest = useRef({ selected: initial, openId: undefined as string | undefined });
  const last = Math.max(0, jobs.length - 1);
  const index = Math.min(selected, last);
  const find = (id: string | undefined) => (id === undefined ? undefined : jobs.find((view) => view.job.id === id));
  const open = find(openId);
  const worktreeOf = (id: string) => worktrees.find((record) => record.jobId === id);

  const select = (next: number) => {
    latest.current.selected = Math.max(0, Math.min(last, next));
    setSelected(latest.current.selected);
  };
  const actions = useJobActions({ onStop, onSend, onWorktree, worktreeOf });
  const openJob = (id: string | undefined) => {
    latest.current.openId = id;
    setOpenId(id);
    actions.reset();
  };

  useKeys(
    (input, key) => {
      const current = Math.min(latest.current.selected, last);
      const opened = find(latest.current.openId);
      if (opened && actions.draft().open) return actions.messageKey(opened, input, key);
      if (key.escape) return opened ? openJob(undefined) : onClose();
      if (opened) return actions.jobKey(opened, input, key);
      if (key.upArrow) return select(current - 1);
      if (key.downArrow) return select(current + 1);
      const chosen = jobs[current]?.job;
      if (key.return && chosen && onOpenJob && chosen.kind !== 'shell') return onOpenJob(chosen.id);
      if (key.return && chosen) return openJob(chosen.id);
      if (input === 'x' && chosen && !isEnded(chosen.state)) onStop(chosen.id);
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
        message={actions.composing ? actions.line : undefined}
        canMessage={onSend !== undefined && canWrite(open.job)}
        note={actions.note}
      />
    );
  return <AgentsList jobs={jobs} selected={index} now={now} width={width} maxLines={maxLines} worktrees={worktrees} />;
}
