/** What openSession takes (a front end's setup) and gives back (a ready session and the machinery around it). */
import type { EarlierTurnEnd } from './turn-ends.js';
import type { Job } from '../jobs/job-manager.js';
import type { UsageReport } from '../jobs/usage-report.js';
import type { SessionAgents } from '../agents/session-agents.js';
import type { AgentColor } from '../agents/agent-definition.js';
import type { CommandSummary } from '../commands/command-files.js';
import type { SettingSource } from '../config/claude-settings.js';
import type { SettingsReview } from '../config/review-settings.js';
import type { QueueSettings } from '../remote/session-queue.js';
import type { Settings } from '../config/settings.js';
import type { HookCallback } from '../hooks/dispatcher.js';
import type { HookSettings } from '../hooks/hook-settings.js';
import type { SessionEndReason } from '../hooks/hook-points.js';

export type { SessionEndReason } from '../hooks/hook-points.js';
import type { SpawnHook } from '../hooks/runner.js';
import type { StatusCommands } from '../hooks/status-command.js';
import type { LoopResult } from '../loop/agent-loop.js';
import type { SignInRequest } from '../mcp/manager.js';
import type { HostedMcpServer } from '../mcp/hosted-server.js';
import type { McpServerStatus } from '../mcp/types.js';
import type { ApprovalGate } from '../permissions/approvals.js';
import type { Approver } from '../permissions/types.js';
import type { Effort, StreamFn, Usage } from '../providers/types.js';
import type { SandboxProbe } from '../sandbox/plan.js';
import type { TextSource } from '../tools/read-file.js';
import type { TextSink } from '../tools/text-sink.js';
import type { CommandRunner } from '../tools/command-runner.js';
import type { EventStream, SessionEvent } from './event-stream.js';
import type { InstructionFileInfo } from './instruction-files.js';
import type { StoredJob } from './job-store.js';
import type { PromptOptions } from './prompt-submission.js';
import type { Session } from './session.js';
import type { CatalogueEntry, ModelSwitch } from './session-model.js';
import type { RewindFace } from './session-checkpoints.js';
import type { SessionPaths } from './store.js';

/** What a front end asks for; every field maps to a flag or is injected by tests. */
export interface SessionSetup {
  cwd: string;
  env: NodeJS.ProcessEnv;
  headless: boolean;
  /** Flags: the top layer of settings. */
  flags: Settings & { continue?: boolean; resume?: string };
  /** The settings files as read and reviewed before start (the TUI asked about them); read here when absent. */
  review?: SettingsReview;
  /** `--trust`: the project's guarded settings apply for this run, whatever the user answered before. */
  trustProject?: boolean;
  /** `--mcp-config` values: files (or JSON text) of `{ "mcpServers": … }`, the user's word. */
  mcpConfig?: string[];
  /** `--queue`: sub-agent jobs go to workers on this Redis queue (remote/session-queue.ts). */
  queue?: QueueSettings;
  approver?: Approver;
  /** `--agents '<json>'`: agents for this run, in Claude Code's format; they override files of the same name. */
  agentsJson?: string;
  /** Replaces the provider (tests pass a fake stream). */
  stream?: StreamFn;
  /** Whether bubblewrap works, when already found out (--debug probes first; tests); else probed here, once. */
  sandboxProbe?: SandboxProbe;
  /** Starts hook commands (default: `sh -c`); tests may pass their own. */
  spawnHook?: SpawnHook;
  /** `--setting-sources`: which settings files are read (user, project, local); all when absent. */
  settingSources?: SettingSource[];
  /** `--settings`: a file or JSON text of settings (outrider's or Claude Code's keys). */
  settingsArg?: string;
  /** `--system-prompt`: the whole system prompt, instead of outrider's. */
  systemPrompt?: string;
  /** `--append-system-prompt`: text added once at the end of the system prompt. */
  appendSystemPrompt?: string;
  /** `--session-id`: the new session's id (a UUID not in use). */
  sessionId?: string;
  /** `--fallback-model`: the model the session moves to when its own is overloaded. */
  fallbackModel?: string;
  /** `--strict-mcp-config`: only the `mcpConfig` servers start (not settings' or `.mcp.json`'s). */
  strictMcpConfig?: boolean;
  /** The Agent SDK's hooks (`initialize`), as `{ Event: [{ matcher, hooks: [{ type: 'callback', command: <id> }] }] }`. */
  sdkHooks?: HookSettings;
  /** Runs one of those callbacks in the SDK (control request `hook_callback`). */
  hookCallback?: HookCallback;
  /** The Agent SDK's in-process MCP servers (`initialize`'s `sdkMcpServers`), each reached over a transport the front end makes. */
  sdkMcpServers?: HostedMcpServer[];
  /** Where read_file takes a file's text before the disk: the editor's buffers (`outrider acp`, fs/read_text_file). */
  readText?: TextSource;
  /** Where write_file and edit_file put new text besides the disk: the editor's buffers (`outrider acp`, fs/write_text_file). */
  writeText?: TextSink;
  /** Where the parent's foreground bash commands run: the editor's terminal (`outrider acp`, terminal/*). */
  runCommand?: CommandRunner;
}

/** A ready session and the machinery around it. */
export interface OpenedSession {
  session: Session;
  provider: string;
  /** The parent's model now (`/model` switches it between turns). */
  readonly model: string;
  /** The parent's reasoning effort (`--effort`, the `effort` setting, `/model`), when its model takes one. */
  readonly effort?: Effort;
  /** The model's context window in tokens (settings' override included). */
  readonly contextWindow: number;
  /**
   * `/model <name> [effort]`, the Agent SDK's `set_model`: the parent's next turns run on `asked`
   * (an id, an alias, `default`); sub-agents started from then on that inherit follow. Refused
   * (the model unchanged) with what to do when the provider cannot serve it.
   */
  switchModel(asked: string, effort?: string): ModelSwitch;
  /** The models `/model` offers: the provider's in the catalogue and the settings, with figures and prices. */
  models(): CatalogueEntry[];
  paths: SessionPaths;
  gate: ApprovalGate;
  agents: SessionAgents;
  /** Start a turn by itself when a sub-agent completes while idle (setting `wakeOnComplete`, on unless set false). */
  wakeOnComplete: boolean;
  /** TUI: how to tell an unfocused terminal that work finished (setting `notify`, the bell unless set). */
  notify: 'bell' | 'osc9' | 'off';
  /** TUI: the status line commands (settings `statusLine`, `subagentStatusLine`), each when configured and allowed. */
  statusLine: StatusCommands;
  /** Things the user should know (a resumed transcript with a cut line, bad agent files). */
  warnings: string[];
  /** The one ordered stream of turn and job events (`session.events`); front ends read only this. */
  events: EventStream;
  /** Headless: waits for running jobs; true when a notice is owed to the model. */
  waitForAgents(signal: AbortSignal): Promise<boolean>;
  /** Compacts the history now (`/compact`); the event is published to the stream too. */
  compact(signal: AbortSignal): Promise<SessionEvent | undefined>;
  totals(): Usage;
  /** Cost of the whole session, sub-agents included; undefined when the model's price is unknown. */
  cost(): number | undefined;
  /** Cost of some usage at this session's model prices, or at job `jobId`'s model's (settings' overrides included). */
  costOf(usage: Usage, jobId?: string): number | undefined;
  /** Usage and cost by job and by model, each at its own model's prices (/cost, the headless results). */
  usageReport(): UsageReport;
  /** A model's context window and output cap (settings' `models` included), for a usage row of it. */
  limitsOf(model: string): { contextWindow: number; maxOutput: number };
  /** Every job of this run, oldest first. */
  jobs(): Job[];
  /** The jobs of the session's earlier runs (a resumed session), read from their transcripts. */
  storedJobs: StoredJob[];
  /** The provider's base URL when one is set (flag, settings or its variable); /status shows it. */
  baseURL?: string;
  /** How bash commands are fenced: `off`, `read-only`, … (/status). */
  sandbox: string;
  /** A resumed session's turns that ended interrupted or failed, where its history stood then (drawn again). */
  earlierTurnEnds: EarlierTurnEnd[];
  /** The model's context window and output cap (settings' `models` included). */
  readonly modelLimits: { contextWindow: number; maxOutput: number };
  /** The agent definitions a sub-agent can be started as. */
  agentNames: string[];
  /** The colour each agent's file gives its jobs' rows (`color:`), by agent name. */
  agentColors: ReadonlyMap<string, AgentColor>;
  /** Custom slash commands (`.claude/commands`, `.outrider/commands`, the user's), for a `/` menu. */
  commands: CommandSummary[];
  /** The skills the model is offered through the `skill` tool. */
  skillNames: string[];
  /**
   * Runs a turn for what the user typed: `/name args` naming a custom command becomes its body
   * with the arguments, and its `allowed-tools` run without asking until the turn ends.
   * `images` (checked by `imageBlocks`) go before the text, with those a typed prompt names as
   * `@shot.png` (commands/prompt-images.ts).
   */
  submitPrompt(text: string, signal: AbortSignal, options?: PromptOptions): Promise<LoopResult>;
  /** The instruction files in the system prompt (AGENTS.md, CLAUDE.md, imports), with sizes and notes: `/memory`. */
  instructionFiles: InstructionFileInfo[];
  /** The MCP servers now; `ready` resolves when each is up or has failed. Their changes are on `events` too. */
  mcp: {
    statuses(): McpServerStatus[];
    ready(): Promise<void>;
    /** `/mcp login <name>`: a remote server's OAuth sign-in in the browser, then the server started again. Throws what to do. */
    signIn(name: string, request: SignInRequest): Promise<void>;
    /** `/mcp logout <name>`: its stored sign-in forgotten, the server started again without. */
    signOut(name: string): Promise<void>;
  };
  /**
   * Moves the parent's running foreground bash calls into the background (Ctrl+B): each
   * call returns at once, its command goes on as a shell job. The new jobs' ids.
   */
  moveToBackground(): string[];
  /**
   * `/rewind`: the earlier prompts, and going back to before one of them, its conversation and/or
   * the files the agent (and sub-agents in this checkout) changed since, as checkpointed before each edit.
   */
  rewind: RewindFace;
  /**
   * Runs the SessionEnd hooks with `reason` (`other` unless told), stops the sub-agents, then
   * closes every MCP server.
   */
  close(reason?: SessionEndReason): Promise<void>;
}
