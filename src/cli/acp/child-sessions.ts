/**
 * Sub-agent jobs as ACP child sessions (the subagents RFD, stabilized 2026-11-20): each job
 * is announced with a `subagent_update` on the session that started it (the parent's, or for
 * a nested job its owner's child session), its own events flow as ordinary `session/update`s
 * under its child session id, and each state change (running, then idle with why it stopped)
 * is reported on its announcing session. Background shells (`sh-N`) stay the parent's tool calls.
 */
import type { SessionUpdate, StateUpdate, Usage as AcpUsage } from '@agentclientprotocol/sdk/unstable';
import type { Job, LoopEvent, StoredJob, Usage } from '../../core/index.js';
import { oneLine } from '../../core/index.js';
import { SessionUpdates } from './session-updates.js';

interface Child {
  sessionId: string;
  /** The session it was announced on, where its state is reported. */
  announcedOn: string;
  updates: SessionUpdates;
  /** The last state reported, so a snapshot that changes nothing is not sent again. */
  reported?: string;
}

export interface ChildSessionsOptions {
  parentId: string;
  cwd: string;
  send: (sessionId: string, update: SessionUpdate) => void;
}

export class ChildSessions {
  private readonly children = new Map<string, Child>();
  private readonly jobs = new Map<string, string>();

  constructor(private readonly options: ChildSessionsOptions) {}

  /** The job a child session id stands for, if it is one of this session's. */
  jobOf(sessionId: string): string | undefined {
    return this.jobs.get(sessionId);
  }

  /** The child session of a job, once announced. */
  sessionOf(jobId: string): string | undefined {
    return this.children.get(jobId)?.sessionId;
  }

  /** A job's new state: announced the first time, its work state reported on each change. */
  onJobState(job: Job): void {
    if (job.kind === 'shell') return;
    const known = this.children.get(job.id);
    const child = known ?? this.announce(job);
    if (!known) this.options.send(child.sessionId, userText(job.task));
    if (job.state === 'done' || job.state === 'error' || job.state === 'aborted') {
      for (const update of child.updates.abandon()) this.options.send(child.sessionId, update);
    }
    this.report(child, job);
  }

  /** One event of a job's own loop, on its child session. */
  onJobEvent(jobId: string, event: LoopEvent): void {
    const child = this.children.get(jobId);
    if (!child) return;
    for (const update of child.updates.fromLoop(event)) this.options.send(child.sessionId, update);
  }

  /** A loaded session's earlier jobs: each announced in its last state, its conversation replayed. */
  replay(stored: readonly StoredJob[]): void {
    for (const { job, messages } of stored) {
      if (job.kind === 'shell') continue;
      const child = this.announce(job);
      for (const update of SessionUpdates.replay(messages, this.options.cwd)) this.options.send(child.sessionId, update);
      this.report(child, job);
    }
  }

  private announce(job: Job): Child {
    const owner = job.owner ? this.children.get(job.owner) : undefined;
    const announcedOn = owner?.sessionId ?? this.options.parentId;
    const child: Child = {
      sessionId: `${this.options.parentId}/${job.id}`,
      announcedOn,
      updates: new SessionUpdates(this.options.cwd),
    };
    this.children.set(job.id, child);
    this.jobs.set(child.sessionId, job.id);
    this.options.send(announcedOn, {
      sessionUpdate: 'subagent_update',
      sessionId: child.sessionId,
      title: `${job.id} · ${job.definition}`,
      description: oneLine(job.task, 200),
      // The editor may stop the job: session/cancel on the child session.
      capabilities: { cancel: {} },
    });
    return child;
  }

  private report(child: Child, job: Job): void {
    const state = workState(job);
    const key = JSON.stringify(state);
    if (!state || key === child.reported) return;
    child.reported = key;
    this.options.send(child.announcedOn, { sessionUpdate: 'subagent_update', sessionId: child.sessionId, state });
  }
}

/** A job's work state in the RFD's words; a queued job has none yet (it is not working, nor done). */
function workState(job: Job): StateUpdate | undefined {
  switch (job.state) {
    case 'queued':
      return undefined;
    case 'running':
      return { state: 'running' };
    case 'done':
      return { state: 'idle', stopReason: 'end_turn', usage: acpUsage(job.usage) };
    case 'aborted':
      return { state: 'idle', stopReason: 'cancelled', usage: acpUsage(job.usage) };
    case 'error':
      return {
        state: 'idle',
        stopReason: 'error',
        error: { code: -32603, message: job.error ?? 'the sub-agent failed' },
        usage: acpUsage(job.usage),
      };
  }
}

/** outrider's token counts in ACP's shape. */
export function acpUsage(usage: Usage): AcpUsage {
  return {
    inputTokens: usage.input,
    outputTokens: usage.output,
    cachedReadTokens: usage.cacheRead,
    cachedWriteTokens: usage.cacheWrite,
    totalTokens: usage.input + usage.output + usage.cacheRead + usage.cacheWrite,
  };
}

function userText(text: string): SessionUpdate {
  return { sessionUpdate: 'user_message_chunk', content: { type: 'text', text } };
}
