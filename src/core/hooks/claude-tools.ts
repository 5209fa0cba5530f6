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
  return input;
}
