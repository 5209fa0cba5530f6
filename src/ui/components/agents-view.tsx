import { useInput } from 'ink';
import { useMemo, useRef, useState } from 'react';
import type { Job } from '../../core/agents/job-manager.js';
import { readAgentTail } from '../state/agent-tail.js';
import { AgentDetail } from './agent-detail.js';
import { AgentsList } from './agents-list.js';

export interface AgentsViewProps {
  jobs: readonly Job[];
  now: number;
  width: number;
  /** Where a job's transcript file is. */
  transcriptOf: (jobId: string) => string;
  active: boolean;
  onStop: (id: string) => void;
  onClose: () => void;
}

/** /agents: the list, and one job opened from it. ↑/↓ move, Enter opens, x stops, Esc goes back. */
export function AgentsView({ jobs, now, width, transcriptOf, active, onStop, onClose }: AgentsViewProps) {
  const [selected, setSelected] = useState(0);
  const [openId, setOpenId] = useState<string | undefined>(undefined);
  // Mirrors of the state for the key handler: keys that arrive in one chunk ("↓⏎") all reach
  // the handler of the same render, so each must see the previous key's effect.
  const latest = useRef({ selected: 0, openId: undefined as string | undefined });
  const last = Math.max(0, jobs.length - 1);
  const index = Math.min(selected, last);
  const open = openId === undefined ? undefined : jobs.find((job) => job.id === openId);

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
      const opened = latest.current.openId === undefined ? undefined : jobs.find((job) => job.id === latest.current.openId);
      if (key.escape) return opened ? openJob(undefined) : onClose();
      if (!opened && key.upArrow) return select(current - 1);
      if (!opened && key.downArrow) return select(current + 1);
      if (!opened && key.return && jobs[current]) return openJob(jobs[current]!.id);
      const target = opened ?? jobs[current];
      if (input === 'x' && target && (target.state === 'queued' || target.state === 'running')) onStop(target.id);
      return undefined;
    },
    { isActive: active },
  );

  // Re-read the transcript when the job moved on (a turn, a tool, its end), at most once a second.
  const second = Math.floor(now / 1000);
  const tailKey = open ? `${open.id}:${open.state}:${open.turns}:${open.toolCalls}:${second}` : '';
  const tail = useMemo(
    () => (open ? readAgentTail(transcriptOf(open.id)) : { lines: [] }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [tailKey, transcriptOf],
  );

  if (open) return <AgentDetail job={open} tail={tail} now={now} width={width} />;
  return <AgentsList jobs={jobs} selected={index} now={now} width={width} />;
}
