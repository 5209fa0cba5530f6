/** The command line as both front ends read it, and the exit codes they return. */
import type { SandboxProbe } from '../core/sandbox/plan.js';

/** Options every front end shares, parsed from the command line. */
export interface CliOptions {
  print?: string | boolean;
  outputFormat: 'text' | 'json' | 'stream-json' | 'events-json';
  /** `stream-json`: user messages on stdin, one JSON object a line, each a turn. */
  inputFormat?: 'text' | 'stream-json';
  /** Accepted for Claude Code's `-p --output-format stream-json --verbose`; stream-json already prints every message. */
  verbose?: boolean;
  provider?: string;
  model?: string;
  baseUrl?: string;
  toolMode?: string;
  /** `--effort low|medium|high|max`: how hard the model reasons (the `effort` setting). */
  effort?: string;
  permissionMode?: string;
  yolo?: boolean;
  maxTurns?: number;
  continue?: boolean;
  resume?: string | boolean;
  addDir?: string[];
  trust?: boolean;
  mcpConfig?: string[];
  /** `--queue <redis-url>`: sub-agent jobs go to workers on this queue. */
  queue?: string;
  /** `--queue-remote <git-url>`: the git remote the session and its workers share. */
  queueRemote?: string;
  /** `--queue-namespace <name>`: the queue's keys live under `outrider:<name>`. */
  queueNamespace?: string;
  maxAgents?: number;
  waitAgents: boolean;
  maxBudgetTokens?: number;
  maxBudgetUsd?: number;
  /** `--agents '<json>'`: agents for this run. */
  agents?: string;
  debug?: boolean;
  sandbox?: string;
  doctor?: boolean;
  // Claude Code's flags (cli/claude-flags.ts).
  dangerouslySkipPermissions?: boolean;
  allowDangerouslySkipPermissions?: boolean;
  allowedTools?: string[];
  disallowedTools?: string[];
  systemPrompt?: string;
  appendSystemPrompt?: string;
  settings?: string;
  settingSources?: string[];
  sessionId?: string;
  fallbackModel?: string;
  strictMcpConfig?: boolean;
  includePartialMessages?: boolean;
  permissionPromptTool?: string;
  // Accepted from the Agent SDK and named in a warning: outrider does not honour them.
  maxThinkingTokens?: string;
  betas?: string[];
  jsonSchema?: string;
  tools?: string;
  agent?: string;
  pluginDir?: string;
  forkSession?: boolean;
  includeHookEvents?: boolean;
  sessionPersistence?: boolean;
  /** Not a flag: the probe --debug made for its start-up line, handed on so the session does not probe again. */
  sandboxProbe?: SandboxProbe;
}

/** Exit codes: 0 success, 1 a failed run, 2 bad usage or configuration. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
