import { useInput } from 'ink';
import { useRef, useState } from 'react';
import { isEnded } from '../../core/agents/job-manager.js';
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
  /** Lines the view may take, border included. */
  maxLines?: number;
  /** The workspace root: paths are shown relative to it. */
  root?: string;
}

/** /agents: the list, and one job opened from it. ↑/↓ move, Enter opens, x stops, Esc goes back. */
export function AgentsView({ jobs, now, width, active, onStop, onClose, maxLines, root }: AgentsViewProps) {
  const [selected, setSelected] = useState(0);
  const [openId, setOpenId] = useState<string | undefined>(undefined);
  // Mirrors of the state for the key handler: keys that arrive in one chunk ("↓⏎") all reach
  // the handler of the same render, so each must see the previous key's effect.
  const latest = useRef({ selected: 0, openId: undefined as string | undefined });
  const last = Math.max(0, jobs.length - 1);
  const index = Math.min(selected, last);
  const find = (id: string | undefined) => (id === undefined ? undefined : jobs.find((view) => view.job.id === id));
  const open = find(openId);

  const select = (next: number) => {
    latest.current.selected = Math.max(0, Math.min(last, next));
    setSelected(latest.current.selected);
  };
  const openJob = (id: string | undefined) => {
    latest.current.openId = id;
    setOpenId(id);
  };

  useInput(
    (input, key) => {
      const current = Math.min(latest.current.selected, last);
      const opened = find(latest.current.openId);
      if (key.escape) return opened ? openJob(undefined) : onClose();
      if (!opened && key.upArrow) return select(current - 1);
      if (!opened && key.downArrow) return select(current + 1);
      if (!opened && key.return && jobs[current]) return openJob(jobs[current]!.job.id);
      const target = (opened ?? jobs[current])?.job;
      if (input === 'x' && target && !isEnded(target.state)) onStop(target.id);
      return undefined;
    },
    { isActive: active },
  );

  if (open) return <AgentDetail view={open} now={now} width={width} maxLines={maxLines} root={root} />;
  return <AgentsList jobs={jobs} selected={index} now={now} width={width} maxLines={maxLines} />;
}
