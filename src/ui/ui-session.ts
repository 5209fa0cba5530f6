import {
  type AgentColor,
  type CatalogueEntry,
  type CommandSummary,
  type EarlierTurnEnd,
  estimateTokens,
  type EventStream,
  type InstructionFileInfo,
  type JobHistory,
  type JobManager,
  listSessions,
  readJobHistory,
  type LoopResult,
  type Message,
  type ModelSwitch,
  type OpenedSession,
  type PermissionMode,
  type RewindFace,
  type SessionEvent,
  type StatusCommands,
  type StoredJob,
  type Usage,
  worktreeCommand,
  type WorktreeChanges,
  type WorktreeRecord,
} from '../core/index.js';
import path from 'node:path';

/** What the UI may ask of sub-agents: intents only; what they do comes from the event stream. */
/** What the UI may do with jobs, and ask of them: which completions the model has not heard of yet (the core's count). */
export type JobControl = Pick<JobManager, 'stop' | 'stopAll' | 'send' | 'undelivered'>;

/** One row of /cost. */
export interface CostRow {
  name: string;
  /** The model its usage was on (a model's own row: that model). */
  model?: string;
  usage: Usage;
  /** Dollars; undefined when the model's price is unknown. */
  cost?: number;
}

/** The part of an opened session the TUI talks to: it renders events and sends intents. */
export interface UiSession {
  /** The parent's model now (`/model` switches it). */
  readonly model: string;
  /** The parent's reasoning effort (`low` … `max`), when its model takes one: the footer shows it. */
  readonly effort?: string;
  /** The model's context window in tokens. */
  readonly contextWindow: number;
  /** `/model`: the models to choose from, and the switch of the next turns to one. */
  models?: {
    list(): CatalogueEntry[];
    switchTo(asked: string, effort?: string): ModelSwitch;
  };
  /** The workspace root: paths are shown relative to it. */
  readonly root: string;
  readonly warnings: readonly string[];
  /** Messages already in the history when the app started (a resumed session). */
  readonly resumedMessages: number;
  /** Those messages, to show the conversation so far. */
  readonly earlier: readonly Message[];
  readonly sessionId: string;
  /** The stored sessions of this directory, newest first (for /resume). */
  sessions(): { id: string; updatedAt: string; firstPrompt: string }[];
  /** The jobs of a resumed session's earlier runs. */
  readonly storedJobs: readonly StoredJob[];
  /** A resumed session's turns that ended interrupted or failed, and after how many of `earlier`'s messages. */
  readonly earlierEnds?: readonly EarlierTurnEnd[];
  /** The session's one ordered stream of turn and job events. */
  readonly events: Pick<EventStream, 'subscribe'>;
  readonly jobs: JobControl;
  /** Runs a turn; its events arrive on `events`. Without a prompt the turn carries only the pending completion notice. */
  submit(prompt: string | undefined, signal: AbortSignal): Promise<LoopResult>;
  /** Start a turn by itself when a sub-agent completes while idle (setting `wakeOnComplete`). */
  readonly wakeOnComplete: boolean;
  /** How to tell an unfocused terminal that a turn or a sub-agent finished (setting `notify`). */
  readonly notify: 'bell' | 'osc9' | 'off';
  /** The status line commands (settings `statusLine`, `subagentStatusLine`), each when configured and allowed. */
  readonly statusLine?: StatusCommands;
  /** Where the session's transcript is written (status line commands are told). */
  readonly transcriptPath?: string;
  /** What /status shows of the session: provider, base URL, sandbox, where it is stored. */
  about?(): { provider: string; baseURL?: string; sandbox: string; folder: string };
  /** The conversation as it stands (/export). */
  messages?(): readonly Message[];
  /** The "allow always" answers of this session (/permissions), and forgetting one. */
  permissions?: {
    /** The rules in force (settings, Claude Code's files, --allowedTools / --disallowedTools), each with what it covers. */
    rules?(): string[];
    remembered(): { tools: string[]; commands: string[] };
    forget(kind: 'tool' | 'command', value: string): boolean;
  };
  compact(signal: AbortSignal): Promise<SessionEvent | undefined>;
  /** The parent, then each job, each on its model; then one row per model; `total` covers all of them. */
  costs(): { rows: CostRow[]; models: CostRow[]; total: CostRow };
  /** Dollars for some usage at the parent's model's prices, or at job `jobId`'s model's; undefined when the price is unknown. */
  costOf(usage: Usage, jobId?: string): number | undefined;
  /** The colour each agent's file gives its jobs (`color:`), by agent name. */
  readonly agentColors?: ReadonlyMap<string, AgentColor>;
  /** Dollars for the whole session, sub-agents included; undefined when the price is unknown. */
  cost(): number | undefined;
  /** The history's size estimated from its text (after a compaction or a resume, before the model says). */
  contextEstimate(): number;
  /** What runs without asking; the parent and every sub-agent share it. */
  permissionMode(): PermissionMode;
  setPermissionMode(mode: PermissionMode): void;
  /** The instruction files in the system prompt, for /memory. */
  readonly instructionFiles?: readonly InstructionFileInfo[];
  /** Custom slash commands (Markdown files): /help and the `/` menu list them; submit expands them. */
  readonly customCommands?: readonly CommandSummary[];
  /** `/agents merge|discard <id>`: an isolated job's worktree applied to the checkout, or removed. */
  worktree?(verb: 'merge' | 'discard', id: string): Promise<{ content: string; isError: boolean }>;
  /**
   * Isolated jobs' worktrees not yet merged or discarded (a resumed session's earlier ones
   * included), read when /agents shows them: worktrees have no events of their own.
   */
  worktrees?(): readonly WorktreeRecord[];
  /** A sub-agent's conversation as its stored transcript holds it now (the job view builds its transcript from it). */
  jobHistory?(id: string, options: { running: boolean }): JobHistory;
  /** What an isolated job's branch changes now (a running job's worktree as it stands); undefined without a worktree. */
  worktreeChanges?(id: string, options: { running: boolean }): Promise<WorktreeChanges | undefined>;
  /** Ctrl+B: the parent's running foreground bash calls go on as shell jobs; their ids. */
  moveToBackground?(): string[];
  /** `/rewind`: the earlier prompts, and going back to before one (conversation, files, or both). */
  rewind?: RewindFace;
  /** `/mcp login|logout <server>`: a remote server's OAuth sign-in, or its stored one forgotten (then it starts again). */
  mcp?: {
    signIn(name: string, request: { onAuthorizationUrl: (url: string) => void; signal?: AbortSignal }): Promise<void>;
    signOut(name: string): Promise<void>;
  };
}

/** Adapts an opened core session to what the UI needs. */
export function uiSessionFrom(opened: OpenedSession): UiSession {
  const { session } = opened;
  return {
    // Read at each use: /model switches them.
    get model() {
      return opened.model;
    },
    get effort() {
      return opened.effort;
    },
    get contextWindow() {
      return opened.contextWindow;
    },
    models: { list: () => opened.models(), switchTo: (asked, effort) => opened.switchModel(asked, effort) },
    root: session.workspace.root,
    warnings: opened.warnings,
    resumedMessages: session.messages().length,
    earlier: [...session.messages()],
    sessionId: session.id,
    sessions: () => listSessions(path.dirname(opened.paths.dir), { cwd: session.workspace.root }),
    storedJobs: opened.storedJobs,
    earlierEnds: opened.earlierTurnEnds,
    events: opened.events,
    jobs: opened.agents.manager,
    // A typed prompt may name a custom command: the core expands it (and scopes its allowed-tools).
    submit: (prompt, signal) => (prompt === undefined ? session.submit(undefined, signal) : opened.submitPrompt(prompt, signal)),
    wakeOnComplete: opened.wakeOnComplete,
    notify: opened.notify,
    statusLine: opened.statusLine,
    transcriptPath: opened.paths.transcript,
    compact: (signal) => opened.compact(signal),
    instructionFiles: opened.instructionFiles,
    customCommands: opened.commands,
    worktree: (verb, id) =>
      worktreeCommand(opened.agents.worktrees, verb, id, (job) => opened.agents.manager.active().some((j) => j.id === job)),
    worktrees: () => opened.agents.worktrees?.list() ?? [],
    jobHistory: (id, options) => readJobHistory(opened.paths, id, options),
    worktreeChanges: async (id, options) => opened.agents.worktrees?.changesNow(id, options),
    moveToBackground: () => opened.moveToBackground(),
    rewind: opened.rewind,
    mcp: { signIn: (name, request) => opened.mcp.signIn(name, request), signOut: (name) => opened.mcp.signOut(name) },
    costs: () => {
      const report = opened.usageReport();
      return { rows: report.rows, models: report.models, total: { name: 'total', ...report.total } };
    },
    costOf: (usage, jobId) => opened.costOf(usage, jobId),
    agentColors: opened.agentColors,
    cost: () => opened.cost(),
    contextEstimate: () => estimateTokens(session.messages(), session.system),
    permissionMode: () => opened.gate.mode,
    setPermissionMode: (mode) => opened.gate.setMode(mode),
    about: () => ({
      provider: opened.provider,
      ...(opened.baseURL ? { baseURL: opened.baseURL } : {}),
      sandbox: opened.sandbox,
      folder: opened.paths.dir,
    }),
    messages: () => session.messages(),
    permissions: {
      rules: () => opened.gate.rules.explain(),
      remembered: () => opened.gate.remembered(),
      forget: (kind, value) => opened.gate.forget(kind, value),
    },
  };
}
