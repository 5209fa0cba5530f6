import type { CallAdmission } from '../loop/agent-loop.js';
import type { LoopEvent } from '../loop/events.js';
import type { Timers } from '../platform/timers.js';
import type { Effort, Message, ModelRequest, ToolSchema, Usage } from '../providers/types.js';
import type { Workspace } from '../tools/define.js';

export type JobState = 'queued' | 'running' | 'done' | 'error' | 'aborted';

/**
 * Facts the job manager reports: state changes (with a snapshot of the job), a child's own
 * events, deliveries to the parent model, and the session budget. No display strings: the
 * front ends word them.
 */
export type JobEvent =
  /** A job was queued, started, or ended; `job` is its snapshot at that moment. */
  | { type: 'job_state'; job: Job }
  /** One event of a child's own loop, tagged with its job, and the job's counters once it is counted. */
  | { type: 'job_event'; jobId: string; event: LoopEvent; counters: JobCounters }
  /** These jobs' results reached the parent model: by a notice in its history, or a poll's result. */
  | { type: 'job_delivered'; jobIds: string[]; via: 'notice' | 'poll' }
  /** A session budget (tokens, or dollars) is spent: no new jobs, and these were stopped. */
  | { type: 'budget_reached'; limit: 'tokens' | 'costUsd'; budget: number; used: number; stopped: string[] };

/** What the manager counts of a job as its events arrive; published with each of them, so no front end counts again. */
export type JobCounters = Pick<Job, 'turns' | 'toolCalls' | 'usage' | 'contextTokens' | 'lastEventAt'>;

/** What a child run reports when it ends (aborts are the manager's to decide). */
export interface ChildOutcome {
  status: 'done' | 'error';
  /** The final text, or `(sub-agent produced no text output)`. */
  text: string;
  /** Set when status is error: what went wrong, limit included. */
  error?: string;
  /** The child's whole conversation as it ended, so a message can resume it (`agent_send`). */
  messages?: Message[];
}

/** The parent's exact request prefix, taken when a fork job is started. */
export interface ForkSnapshot {
  system: string;
  schemas: ToolSchema[];
  messages: Message[];
}

export interface ChildRunRequest {
  id: string;
  task: string;
  instructions?: string;
  definition: string;
  mode: 'typed' | 'fork';
  /** Fork mode: the parent's conversation as it stood when agent_start ran. */
  fork?: ForkSnapshot;
  /** A resumed job: its conversation so far with the new message last; the child goes on from there. */
  resume?: Message[];
  /** Messages sent to the job while it runs; the child takes them at its next step boundary. */
  takeInbox?: () => Message[];
  /** Only the messages sent to it: asked when the child would end its run, so one sent just then is read. */
  takeMessages?: () => Message[];
  /** Each message as it joins the child's history (so notices it was given are confirmed by id). */
  onMessage?: (message: Message) => void;
  /** How deep the job sits: 1 for the parent's own jobs, 2 for theirs… */
  depth?: number;
  /** The model it runs on, when the manager resolved one. */
  model?: string;
  /** The reasoning effort its calls carry (its definition's, else the session's), when its model takes one. */
  effort?: Effort;
  // Budgets.
  /** Its caps as the manager settled them; the run keeps to its turns, tool calls and time. */
  budget?: JobBudget;
  /** Asked before each model call: its tokens and dollars against its caps, its owners' and the session's. */
  admitCall?: (request: ModelRequest) => CallAdmission;
  signal: AbortSignal;
  onEvent: (event: LoopEvent) => void;
  // Isolation: where an isolated job's tools are rooted (its worktree); the session's workspace when absent.
  workspace?: Workspace;
  // Queue.
  /** `local`: agent_start asked that it run on this machine even when the session has a queue. */
  where?: 'local';
  /** A queue job sent by an earlier run of the session: follow it (from `cursor`) instead of sending it again. */
  attach?: { remoteId: string; cursor?: string };
  /** A queue job's facts as they become known: its id on the queue, the worker that took it. */
  onRemote?: (facts: Pick<Job, 'remoteId' | 'worker'>) => void;
}

/** Who sent a message to a job. */
export type MessageSender = 'parent' | 'user';

/** What `send` did with a message. */
export type SendResult =
  /** The job runs: the message waits in its inbox for the next step boundary. */
  | { kind: 'inbox'; job: Job }
  /** The job has not started: the message joined its task. */
  | { kind: 'task'; job: Job }
  /** The job had ended: it runs again with its history and the message, and owes a completion again. */
  | { kind: 'resumed'; job: Job }
  /** A background shell: the message and a newline went to its stdin; `pendingBytes` of it it has not read yet. */
  | { kind: 'stdin'; job: Job; pendingBytes: number };

/** Runs one child loop to its end; throwing counts as an error outcome. */
export type ChildRunner = (request: ChildRunRequest) => Promise<ChildOutcome>;

/**
 * Caps on one job; at a cap the job ends failed, its partial text its result. Tokens and dollars
 * count its subtree (the jobs it started) and are judged before each model call; turns, tool
 * calls and time are its own run's.
 */
export interface JobBudget {
  maxTokens?: number;
  maxCostUsd?: number;
  maxTurns?: number;
  maxToolCalls?: number;
  /** Wall time of its run, in milliseconds. */
  maxDurationMs?: number;
}

export interface StartOptions {
  instructions?: string;
  budget?: JobBudget;
  /** Definition name; the manager's default when absent. */
  agent?: string;
  mode?: 'typed' | 'fork';
  /** The tool call that asked, so ids follow the order the model wrote its calls in. */
  callId?: string;
  /** The job that starts it (a nested job `sub-2.1` of `sub-2`); undefined for the parent. */
  owner?: string;
  /** agent_start's `model`: over the definition's. */
  model?: string;
  // Isolation.
  /** `worktree`: the job edits its own git worktree, merged into the checkout on request. */
  isolation?: 'worktree';
  /** `local`: run on this machine even when the session sends jobs to a queue. */
  where?: 'local';
  // Dependencies.
  /** Jobs (sub-agent ids) it waits for: it runs once they all ended done, their reports added to its task. */
  after?: string[];
}

/** `sub`: a model child; `shell`: a background bash command (`sh-N`). */
export type JobKind = 'sub' | 'shell';

/** A snapshot of one job, for polls, lists and the UI. */
export interface Job {
  id: string;
  number: number;
  state: JobState;
  definition: string;
  mode: 'typed' | 'fork';
  task: string;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  result?: string;
  error?: string;
  turns: number;
  toolCalls: number;
  contextTokens: number;
  usage: Usage;
  budget?: JobBudget;
  /** The agent_start call that started it, when a tool call did (front ends tag its messages with it). */
  callId?: string;
  // Kinds, owners and shells: absent on jobs written by versions before them.
  /** Absent: a sub-agent. */
  kind?: JobKind;
  /** The job that started this one; absent when the parent did. */
  owner?: string;
  /** 1 for the parent's own jobs, one more per level of nesting. */
  depth?: number;
  /** A shell's last line of output, for its row. */
  lastLine?: string;
  /** A shell's exit code once it exited by itself (null when a signal ended it). */
  exitCode?: number | null;
  /** The model a sub-agent runs on (resolved against the session's provider). */
  model?: string;
  /** Why the model asked for is not the one it runs on, when it is not. */
  modelRefused?: string;
  /** Its reasoning effort (its definition's, else the session's), when its model takes one. */
  effort?: Effort;
  /** Of a job with caps: the largest fraction of one cap its subtree has used (0.8 and up: near it). */
  budgetUsed?: number;
  // Isolation.
  /** `worktree` when agent_start asked for one (a definition's own isolation is the session's to apply). */
  isolation?: 'worktree';
  /**
   * Queued or running when the session ended without stopping it (a crash, `kill -9`): a resumed
   * session lists it as failed with `error` saying so, announces it once, and a message resumes it.
   */
  interrupted?: boolean;
  // Queue.
  /** `local` when agent_start asked to keep it on this machine. */
  where?: 'local';
  /** Its id on the session's queue, once sent there: what a resumed session attaches to. */
  remoteId?: string;
  /** The worker running it (`sub-3 @ build-2`). */
  worker?: string;
  // Progress and dependencies.
  /** When its run last reported an event (its start, when none yet): how long it has been stalled. */
  lastEventAt?: number;
  /** The jobs it was started to wait for (agent_start's `after`). */
  after?: string[];
  /** Those of `after` that have not ended yet, while it waits (queued, taking no slot). */
  waitingFor?: string[];
  /** Their reports were added to its task (it no longer waits for them, even when resumed). */
  afterMet?: boolean;
}

/** What a poll ended with. */
export type PollResult = ({ kind: 'ended'; job: Job } | { kind: 'running'; job: Job } | { kind: 'interrupted'; job: Job }) & {
  /** A shell's output written since the previous poll. */
  output?: string;
};

export type { Timers } from '../platform/timers.js';

export interface JobManagerOptions {
  run: ChildRunner;
  emit?: (event: JobEvent) => void;
  maxConcurrent?: number;
  pollTimeoutMs?: number;
  /** Levels of sub-agents: 1 (default) lets only the parent start them, up to 3. */
  maxDepth?: number;
  /** The model a job of `definition` runs on, `requested` being agent_start's `model` (model-resolution.ts). */
  modelFor?: (definition: string, requested: string | undefined) => { model: string; refused?: string; effort?: Effort };
  defaultAgent?: string;
  /** Known definition names; `start` refuses others. */
  definitions?: () => string[];
  /** The caps a job of `definition` gets unless agent_start asks for lower ones (its file's, else the settings'). */
  capsFor?: (definition: string) => JobBudget;
  /**
   * The session's budget (jobs/budget.ts): it counts each job's usage and judges the caps; the
   * manager carries out its verdict. Without one, nothing is capped.
   */
  budget?: BudgetPolicy;
  /** The parent's conversation now, for fork mode; taken at start, not when the job runs. */
  forkSnapshot?: () => ForkSnapshot;
  /**
   * Jobs that run on the session's queue: they take no local slot (their workers have their own
   * limits) and wait in a queue of `concurrency` followed at once (default 64).
   */
  remote?: {
    runsRemotely: (job: Job) => boolean;
    concurrency?: number;
    /** At close, before anything is stopped: stop following queue jobs, which go on on their workers. */
    detach?: () => Promise<void>;
  };
  /** The first job number (a resumed session continues after its earlier jobs). */
  firstNumber?: number;
  /** A running sub-agent with no event for this long is named once in a notice to its owner (default 5 min). */
  stallNoticeMs?: number;
  now?: () => number;
  timers?: Timers;
}

/** A session budget that is spent: which one, and the text the model and the user get. */
export interface SpentBudget {
  limit: 'tokens' | 'costUsd';
  budget: number;
  used: number;
  message: string;
}

/** What the caps say after some usage was counted; the job manager carries it out. */
export interface BudgetVerdict {
  /** Jobs with caps and the largest share of one cap their subtree has used. */
  shares: { id: string; fraction: number }[];
  /** Jobs past one of their own caps, with the cap and the figure named. */
  failed: { id: string; reason: string }[];
  /** The session's budget, when it is spent. */
  spent?: SpentBudget;
}

/** What the job manager asks of a budget (jobs/budget.ts has the session's). */
export interface BudgetPolicy {
  /** Why no job may start (or be resumed) now, or undefined. */
  admission(jobs: readonly Job[]): string | undefined;
  /** Counts a job's usage, then judges the caps. */
  record(jobId: string, usage: Usage, jobs: readonly Job[]): BudgetVerdict;
  /** At the parent's step boundary, its own usage settled. */
  atBoundary(jobs: readonly Job[]): BudgetVerdict;
  /**
   * A new job's caps within what its owners have left; refused when they have nothing left, or
   * when a dollar cap applies and its model has no known price.
   */
  capsForStart?(
    caps: JobBudget,
    job: { owner?: string; model?: string },
    jobs: readonly Job[],
  ): { caps: JobBudget } | { refused: string };
  /** Before a job's model call: admitted (its worst case held until its usage is counted), or refused naming the cap. */
  admitCall?(jobId: string, request: ModelRequest, jobs: readonly Job[]): CallAdmission;
  /** What is left of the session's budget, in words, when it has one. */
  sessionLeft?(jobs: readonly Job[]): string | undefined;
}
