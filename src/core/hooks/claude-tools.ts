import path from 'node:path';
import { CLAUDE_TOOL_NAMES } from '../tools/claude-tool-names.js';

// Hook scripts written for Claude Code test `tool_name == "Bash"` and read
// `.tool_input.file_path`: they see outrider's tools under Claude Code's names and fields.

/** Claude Code names of outrider tools that CLAUDE_TOOL_NAMES (agent files) does not map. */
const MORE_CLAUDE_NAMES: Readonly<Record<string, string>> = Object.freeze({
  Task: 'agent_start',
  Agent: 'agent_start',
  WebFetch: 'web_fetch',
  TodoWrite: 'todo_write',
  Skill: 'skill',
  ListMcpResourcesTool: 'list_mcp_resources',
  ReadMcpResourceTool: 'read_mcp_resource',
});

/** Every Claude Code name each outrider tool answers to in a matcher; the first is the one hooks are told. */
const ALIASES: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const [claude, ours] of [...Object.entries(CLAUDE_TOOL_NAMES), ...Object.entries(MORE_CLAUDE_NAMES)]) {
    const list = map.get(ours) ?? [];
    list.push(claude);
    map.set(ours, list);
  }
  return map;
})();

/** The names a matcher is tried against for a tool: outrider's own, then Claude Code's (`bash`, `Bash`). */
export function matchableNames(toolName: string): string[] {
  return [toolName, ...(ALIASES.get(toolName) ?? [])];
}

/** The name a hook reads as `tool_name`: Claude Code's when the tool has one (`Bash`), else outrider's (`mcp__…`). */
export function claudeToolName(toolName: string): string {
  return ALIASES.get(toolName)?.[0] ?? toolName;
}

/** Tools whose `path` argument Claude Code calls `file_path`. */
const FILE_PATH_TOOLS: ReadonlySet<string> = new Set(['read_file', 'write_file', 'edit_file']);

/**
 * A call's arguments as a hook reads `tool_input`: outrider's fields as they are, plus
 * Claude Code's names for them (`file_path` beside `path`, absolute as Claude Code gives it),
 * so scripts written for either read them.
 */
export function hookToolInput(toolName: string, args: unknown, root: string): unknown {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return args;
  const input = { ...(args as Record<string, unknown>) };
  if (FILE_PATH_TOOLS.has(toolName) && typeof input.path === 'string' && input.file_path === undefined) {
    input.file_path = path.resolve(root, input.path);
  }
  if (toolName === 'bash' && typeof input.timeout_ms === 'number' && input.timeout === undefined)
    input.timeout = input.timeout_ms;
  // Task's fields: the task is the prompt, the agent the subagent_type, its first line the description.
  if (toolName === 'agent_start' && typeof input.task === 'string') {
    if (input.prompt === undefined)
      input.prompt = typeof input.instructions === 'string' ? `${input.task}\n\n${input.instructions}` : input.task;
    if (input.subagent_type === undefined) input.subagent_type = typeof input.agent === 'string' ? input.agent : 'explore';
    if (input.description === undefined) input.description = firstLine(input.task, 60);
  }
  return input;
}

/**
 * What Claude Code's `tool_response` holds beyond the text, for hooks that read it: Bash's
 * `stdout` (outrider's output interleaves stderr into it), `stderr`, `interrupted`, `isImage`.
 */
export function claudeToolResponse(toolName: string, result: { content: string; isError: boolean }): Record<string, unknown> {
  if (toolName !== 'bash') return {};
  const lines = result.content.split('\n');
  const status = lines.at(-1) ?? '';
  return {
    stdout: result.content,
    stderr: '',
    interrupted: /\b(interrupted|timed out after)\b/.test(status),
    isImage: false,
  };
}

function firstLine(text: string, max: number): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A call's input as Claude Code's programs read it (a hook's `tool_input`, the SDK's `canUseTool`): both field names. */
export const claudeToolInput = hookToolInput;

/**
 * Input a program changed (the SDK's `updatedInput`) back in outrider's fields: a changed
 * `file_path` moves `path`, a changed `timeout` moves `timeout_ms`; the names added for
 * Claude Code's sake are dropped again.
 */
export function fromClaudeToolInput(toolName: string, updated: Record<string, unknown>, sent: unknown): Record<string, unknown> {
  const given = (sent && typeof sent === 'object' ? sent : {}) as Record<string, unknown>;
  const out = { ...updated };
  if (FILE_PATH_TOOLS.has(toolName) && 'file_path' in out) {
    if (out.file_path !== given.file_path && typeof out.file_path === 'string') out.path = out.file_path;
    delete out.file_path;
  }
  if (toolName === 'bash' && 'timeout' in out) {
    if (out.timeout !== given.timeout && typeof out.timeout === 'number') out.timeout_ms = out.timeout;
    delete out.timeout;
  }
  return out;
}
