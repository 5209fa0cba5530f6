import type { PermissionMode } from '../permissions/types.js';
import { CLAUDE_TOOL_NAMES } from '../tools/claude-tool-names.js';
import { AGENT_COLORS, type AgentColor, type ChildPermissions } from './agent-definition.js';

export { CLAUDE_TOOL_NAMES };

// What Claude Code's agent files mean, as far as outrider can honour it: tool names, the
// `tools:` syntax, permission modes, model aliases and the fields that have no meaning here.
// Everything is read as a wish to narrow; nothing a file says can widen what runs.

/** Claude Code tools outrider does not have: denying one of them leaves nothing to remove. */
const CLAUDE_ONLY_TOOLS: ReadonlySet<string> = new Set([
  'Agent',
  'Task',
  'TaskOutput',
  'TaskStop',
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'NotebookEdit',
  'BashOutput',
  'KillShell',
  'KillBash',
  'SlashCommand',
  'Skill',
  'ExitPlanMode',
  'EnterPlanMode',
  'AskUserQuestion',
  'ListMcpResourcesTool',
  'ReadMcpResourceTool',
  'LSP',
]);

/**
 * Splits Claude Code's `tools:` string at the commas between names, not inside a name's
 * parentheses: `Agent(worker, researcher), mcp__github__*` is two names.
 */
export function splitToolList(text: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(' || char === '[') depth++;
    else if ((char === ')' || char === ']') && depth > 0) depth--;
    if (char === ',' && depth === 0) {
      names.push(current);
      current = '';
    } else current += char;
  }
  names.push(current);
  return names.map((name) => name.trim()).filter(Boolean);
}

/** `Bash(git diff:*)` → `{ base: 'Bash', pattern: 'git diff:*' }`; a plain name has no pattern. */
function splitPattern(name: string): { base: string; pattern?: string } {
  const match = /^([\w-]+)\s*\((.*)\)$/s.exec(name);
  return match ? { base: match[1]!, pattern: match[2]! } : { base: name };
}

const isAgentTool = (base: string) => base === 'Agent' || base === 'Task';

/** One name of a Claude file's `tools:` list: the outrider tool it grants, or why it grants none. */
export function claudeAllowed(name: string): { tool: string } | { reason: string } {
  const { base, pattern } = splitPattern(name);
  if (isAgentTool(base)) return { reason: 'sub-agents cannot start sub-agents' };
  const tool = Object.hasOwn(CLAUDE_TOOL_NAMES, base) ? CLAUDE_TOOL_NAMES[base] : undefined;
  if (tool === undefined) return { reason: 'no outrider equivalent' };
  // Granting all of bash for `Bash(git diff:*)` would give more than the file asks for.
  if (pattern !== undefined) return { reason: `outrider cannot limit ${tool} to a pattern` };
  return { tool };
}

/**
 * One name of a Claude file's `disallowedTools:`: the outrider tool to remove (all of it, even
 * when only a pattern of it is denied: narrower is safe), nothing when outrider has no such
 * tool anyway, or a note for a name Claude Code does not know either (a typo leaves a tool in).
 */
export function claudeDenied(name: string): { tool?: string; note?: string } {
  const { base, pattern } = splitPattern(name);
  // An MCP tool (or pattern) is removed by its own name: the child's filter matches patterns.
  if (base.startsWith('mcp__')) return { tool: name };
  if (isAgentTool(base) || CLAUDE_ONLY_TOOLS.has(base)) return {};
  const tool = Object.hasOwn(CLAUDE_TOOL_NAMES, base) ? CLAUDE_TOOL_NAMES[base] : undefined;
  if (tool === undefined) return { note: `${JSON.stringify(name)} is not a Claude Code tool; nothing removed` };
  if (pattern !== undefined)
    return { tool, note: `${JSON.stringify(name)}: outrider cannot deny part of a tool; ${tool} removed whole` };
  return { tool };
}

/** `permissionMode` values, Claude Code's and outrider's own spellings, to the child's ceiling. */
const PERMISSION_MODES: Readonly<Record<string, { mode: PermissionMode; ask: boolean }>> = Object.freeze({
  plan: { mode: 'plan', ask: true },
  default: { mode: 'default', ask: true },
  acceptedits: { mode: 'accept-edits', ask: true },
  bypasspermissions: { mode: 'yolo', ask: true },
  yolo: { mode: 'yolo', ask: true },
  // Claude Code's dontAsk runs what is allowed without asking and denies the rest.
  dontask: { mode: 'default', ask: false },
});

/** The words a file may use for `permissionMode`, for the error message. */
export const PERMISSION_MODE_WORDS = 'default, acceptEdits, dontAsk, bypassPermissions, plan (or accept-edits, yolo)';

/** A `permissionMode` value as the child's ceiling; undefined for a value outrider does not know. */
export function childPermissions(value: string): ChildPermissions | undefined {
  const found =
    PERMISSION_MODES[
      value
        .trim()
        .toLowerCase()
        .replace(/[-_\s]/g, '')
    ];
  return found && { ...found, asWritten: value.trim() };
}

/**
 * Claude Code's model aliases (`sonnet`, `opus`, `haiku`, `opusplan`, `default`, with an
 * optional `[1m]`): they name no model of any provider, so until aliases are resolved the
 * child runs on the parent's model rather than sending a name the provider would refuse.
 */
export function isModelAlias(model: string): boolean {
  return /^(sonnet|opus|haiku|opusplan|default)(\[1m\])?$/i.test(model.trim());
}

/** Claude Code fields that mean nothing for an outrider sub-agent; a file using one is told so once. */
const IGNORED_FIELDS: readonly string[] = Object.freeze(['initialPrompt']);

/** The known fields of `data` that outrider cannot honour, in file order. */
export function ignoredFields(data: Record<string, unknown>): string[] {
  return Object.keys(data).filter((key) => {
    if (key === 'background') return data[key] !== true && data[key] !== null;
    return IGNORED_FIELDS.includes(key) && data[key] !== null;
  });
}

/** Claude Code turns a literal `\n` of a one-line description into a line break; so do we. */
export function unescapeDescription(text: string): string {
  return text.replace(/\\r\\n|\\n/g, '\n');
}

/** A `color:` value as Claude Code writes it (`Purple` too); undefined for any other. */
export function agentColor(value: unknown): AgentColor | undefined {
  if (typeof value !== 'string') return undefined;
  const name = value.trim().toLowerCase();
  return AGENT_COLORS.find((color) => color === name);
}
