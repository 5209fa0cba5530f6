import type { McpServerEntry } from '../config/mcp-servers.js';
import type { HookSettings } from '../hooks/hook-settings.js';
import type { PermissionMode } from '../permissions/types.js';
import type { Effort } from '../providers/types.js';

/** The colours Claude Code gives agents (`color:` in an agent file). */
export const AGENT_COLORS = ['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'pink', 'cyan'] as const;
export type AgentColor = (typeof AGENT_COLORS)[number];

/** Data describing a kind of sub-agent: who it is, what it may use, how long it may run. */
export interface AgentDefinition {
  name: string;
  description: string;
  /** The body of the file: the system prompt. */
  systemPrompt: string;
  /** Allowlist of tool names; undefined means the default read-only set. */
  tools?: string[];
  disallowedTools: string[];
  /** 'inherit', a model id, or a Claude Code alias (`sonnet`…) kept as written; see `childModel`. */
  model: string;
  maxTurns?: number;
  maxTotalTokens?: number;
  maxDurationMs?: number;
  /** `maxCostUsd`: dollars one job (with the jobs it starts) may spend. */
  maxCostUsd?: number;
  /** `maxToolCalls`: tool calls one run of a job may make. */
  maxToolCalls?: number;
  /** The file's `permissionMode`: a ceiling on the session's mode for this agent's children. */
  permissions?: ChildPermissions;
  /** `effort`: how hard its jobs' model reasons, over the session's effort (where the model takes one). */
  effort?: Effort;
  /** `isolation: worktree`: every job of this agent edits its own git worktree. */
  isolation?: 'worktree';
  /** `color`: the colour its jobs' rows are drawn in (Claude Code's names). */
  color?: AgentColor;
  /** `runsOn: [gpu]`: on a session with a queue, its jobs go to workers with these labels. */
  runsOn?: string[];
  /** `skills`: skills whose whole text its jobs start with (folded into `systemPrompt` once the session's skills are read). */
  skills?: string[];
  /** `mcpServers`: a server of the session's by name, or one started for each of its jobs alone. */
  mcpServers?: AgentMcpServer[];
  /** `hooks`, in the settings' shape: run for its jobs' own tool calls and ends only (`Stop` is read as SubagentStop). */
  hooks?: HookSettings;
  /** `memory`: where its jobs keep notes from one job to the next (job-memory.ts). */
  memory?: AgentMemoryScope;
  source: 'builtin' | 'user' | 'project' | 'claude';
  /** File it came from (not for built-ins). */
  path?: string;
  /**
   * Read from the repository (`.outrider/agents`, `.claude/agents` in the project): its limits
   * may lower the session's sub-agent limits, never raise them, as with a project's settings.
   */
  fromRepository?: boolean;
}

/**
 * The most a definition's children may do: they run in the narrower of `mode` and the
 * session's own mode, so a file can take rights away and never add any. `ask: false`
 * (Claude Code's `dontAsk`) denies what would otherwise be asked.
 */
export interface ChildPermissions {
  mode: PermissionMode;
  ask: boolean;
  /** The value as the file wrote it (`acceptEdits`), for messages. */
  asWritten: string;
}

/** Where a definition read from a file came from. */
export type FileSource = Exclude<AgentDefinition['source'], 'builtin'>;

/** An agent file's `mcpServers` item: a server the session has (`github`), or one defined for its jobs alone. */
export type AgentMcpServer = { name: string } | { name: string; entry: McpServerEntry };

/** `memory: user | project | local`: the user's folder, the project's (committed), or the project's kept out of git. */
export type AgentMemoryScope = 'user' | 'project' | 'local';
