import type { Message, StopReason, Usage } from '../providers/types.js';

/** Why a run ended. */
export type StopCause =
  | { kind: 'completed' }
  | { kind: 'aborted' }
  | { kind: 'limit'; limit: 'maxTurns' | 'maxTotalTokens' | 'maxDuration'; detail: string }
  | { kind: 'error'; message: string };

/**
 * The one event union the core speaks. Front ends switch over `type` with a `never`
 * check, so a new event fails to compile until every front end handles it.
 */
export type AgentEvent =
  | { type: 'turn_start'; turn: number }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'message_end'; message: Message; stopReason: StopReason }
  | { type: 'retry'; attempt: number; maxRetries: number; delayMs: number; reason: string }
  | { type: 'tool_start'; id: string; name: string; label: string; args: unknown }
  | { type: 'tool_update'; id: string; name: string; text: string }
  | { type: 'tool_end'; id: string; name: string; content: string; isError: boolean }
  | { type: 'usage'; usage: Usage; total: Usage }
  /** A message injected at a step boundary (e.g. the sub-agent completion notice). */
  | { type: 'injected'; message: Message }
  | { type: 'compact'; removedMessages: number; summaryChars: number }
  | { type: 'notice'; level: 'info' | 'warn'; text: string }
  | { type: 'turn_end'; turn: number }
  | { type: 'run_end'; cause: StopCause }
  | JobEvent;

export type JobState = 'queued' | 'running' | 'done' | 'error' | 'aborted';

/** Events of the job manager: per-job activity, rows, the status segment and notices. */
export type JobEvent =
  /** One event of a child's own loop, tagged with its job. */
  | { type: 'job_event'; jobId: string; event: ChildEvent }
  | { type: 'job_state'; jobId: string; state: JobState; definition: string; label: string }
  /** A keyed activity row; empty text removes it. Rank is the job number. */
  | { type: 'job_row'; key: string; text: string; rank: number }
  | { type: 'job_status'; text: string; short: string }
  | { type: 'job_notice'; text: string; jobIds: string[] };

/** The events of a child loop that the manager forwards (never nested job events). */
export type ChildEvent = Exclude<AgentEvent, JobEvent>;
