/** Data describing a kind of sub-agent: who it is, what it may use, how long it may run. */
export interface AgentDefinition {
  name: string;
  description: string;
  /** The body of the file: the system prompt. */
  systemPrompt: string;
  /** Allowlist of tool names; undefined means the default read-only set. */
  tools?: string[];
  disallowedTools: string[];
  /** 'inherit' or a model id. */
  model: string;
  maxTurns?: number;
  maxTotalTokens?: number;
  maxDurationMs?: number;
  source: 'builtin' | 'user' | 'project' | 'claude';
  /** File it came from (not for built-ins). */
  path?: string;
}

/** Where a definition read from a file came from. */
export type FileSource = Exclude<AgentDefinition['source'], 'builtin'>;
