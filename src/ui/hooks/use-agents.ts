import { useCallback, useEffect, useRef, useState } from 'react';
import type { Job } from '../../core/agents/job-manager.js';
import type { AgentEvent } from '../../core/loop/events.js';
import { type RowMap, applyRowEvents } from '../state/activity-rows.js';
import { EventBuffer } from '../state/event-buffer.js';
import type { UiSession } from '../ui-session.js';

/** What the UI shows of sub-agents: the activity rows, job snapshots and the time they were taken. */
export interface AgentsView {
  rows: RowMap;
  jobs: Job[];
  now: number;
  /** Takes fresh snapshots now (after a stop). */
  refresh(): void;
}

const TICK_MS = 1000;

/**
 * Subscribes to the session's background job events and coalesces them: one render per
 * `flushMs` however many rows changed. Elapsed times tick once a second while a job is active.
 */
export function useAgents(session: UiSession, flushMs: number, onEvents: (events: AgentEvent[]) => void): AgentsView {
  const [state, setState] = useState(() => ({ rows: new Map() as RowMap, jobs: session.jobs.list(), now: Date.now() }));
  const onEventsRef = useRef(onEvents);
  onEventsRef.current = onEvents;

  const refresh = useCallback(() => setState((prev) => ({ ...prev, jobs: session.jobs.list(), now: Date.now() })), [session]);

  useEffect(() => {
    const buffer = new EventBuffer<AgentEvent>(flushMs, (events) => {
      setState((prev) => ({ rows: applyRowEvents(prev.rows, events), jobs: session.jobs.list(), now: Date.now() }));
      onEventsRef.current(events);
    });
    const unsubscribe = session.onBackgroundEvent((event) => buffer.push(event));
    return () => {
      unsubscribe();
      buffer.dispose();
    };
  }, [session, flushMs]);

  const active = state.jobs.some((job) => job.state === 'queued' || job.state === 'running');
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(refresh, TICK_MS);
    return () => clearInterval(timer);
  }, [active, refresh]);

  return { ...state, refresh };
}
