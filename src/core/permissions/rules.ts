/**
 * Permission rules in Claude Code's grammar: `Tool` or `Tool(specifier)`, such as `Bash`,
 * `Bash(git diff:*)`, `Read(./secrets/**)`, `Edit(src/**)`, `WebFetch(domain:example.com)`,
 * `mcp__github`, `mcp__github__create_issue`; outrider's own tool names (`bash(npm test:*)`)
 * and tool name patterns (`mcp__github__*`) too. This file reads a rule and says which of
 * outrider's tools it names; rule-match.ts matches calls against them.
 */

/** One rule as written, split into its tool and its specifier. */
export interface PermissionRule {
  /** The rule as written (trimmed): what the user is told when it decides a call. */
  text: string;
  /** The tool part: a Claude Code name (`Read`), an outrider one (`read_file`), or a name pattern (`mcp__x__*`). */
  tool: string;
  /** What is inside the parentheses; absent for a bare tool name (or `Tool(*)`). */
  specifier?: string;
}

/** What a specifier means for a tool: a path pattern, a command, a domain, an agent or skill name, or nothing. */
export type RuleFamily = 'read' | 'edit' | 'bash' | 'web' | 'agent' | 'skill' | 'plain';

/** Claude Code's tool names in rules → outrider's tools, and what their specifier means. */
const CLAUDE_RULE_TOOLS: Readonly<Record<string, { tools: readonly string[]; family: RuleFamily }>> = Object.freeze({
  // Claude Code: "Read rules apply to every tool that reads files" (Grep, Glob and LS too).
  Read: { tools: ['read_file', 'grep', 'glob', 'list_dir'], family: 'read' },
  NotebookRead: { tools: ['read_file'], family: 'read' },
  // "Edit rules apply to every built-in tool that edits files."
  Edit: { tools: ['edit_file', 'write_file'], family: 'edit' },
  MultiEdit: { tools: ['edit_file'], family: 'edit' },
  Write: { tools: ['write_file'], family: 'edit' },
  Grep: { tools: ['grep'], family: 'read' },
  Glob: { tools: ['glob'], family: 'read' },
  LS: { tools: ['list_dir'], family: 'read' },
  Bash: { tools: ['bash'], family: 'bash' },
  WebFetch: { tools: ['web_fetch'], family: 'web' },
  Task: { tools: ['agent_start'], family: 'agent' },
  Agent: { tools: ['agent_start'], family: 'agent' },
  TodoWrite: { tools: ['todo_write'], family: 'plain' },
  Skill: { tools: ['skill'], family: 'skill' },
  ListMcpResourcesTool: { tools: ['list_mcp_resources'], family: 'plain' },
  ReadMcpResourceTool: { tools: ['read_mcp_resource'], family: 'plain' },
});

/** Claude Code tools outrider has no counterpart of: a rule naming one is said to do nothing. */
const CLAUDE_ONLY = new Set(['WebSearch', 'NotebookEdit', 'ExitPlanMode', 'BashOutput', 'KillShell', 'KillBash', 'SlashCommand']);

/** Outrider's own tools' families (a rule may name them as they are: `bash(npm test:*)`, `read_file(src/**)`). */
const OWN_FAMILIES: Readonly<Record<string, RuleFamily>> = Object.freeze({
  read_file: 'read',
  grep: 'read',
  glob: 'read',
  list_dir: 'read',
  edit_file: 'edit',
  write_file: 'edit',
  bash: 'bash',
  web_fetch: 'web',
  agent_start: 'agent',
  skill: 'skill',
});

/** A rule that cannot be read; the message says what is wrong and what a rule looks like. */
export class RuleSyntaxError extends Error {
  override name = 'RuleSyntaxError';
}

const EXAMPLES = 'such as "Bash(npm run test:*)", "Read(./secrets/**)" or "mcp__github"';
const TOOL_PART = /^[A-Za-z0-9_\-*?.[\]]+$/;

/** Reads one rule; throws RuleSyntaxError naming what is wrong. */
export function parseRule(written: string): PermissionRule {
  const text = written.trim();
  const shown = JSON.stringify(written);
  if (text === '') throw new RuleSyntaxError(`an empty rule; write a tool name or Tool(specifier), ${EXAMPLES}`);
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\0-\x1f\x7f]/.test(text)) throw new RuleSyntaxError(`${shown} holds control characters; write it on one line`);
  const open = text.indexOf('(');
  if (open === -1) {
    if (text.includes(')')) throw new RuleSyntaxError(`${shown} has a ")" without "("; ${EXAMPLES}`);
    if (!TOOL_PART.test(text)) throw new RuleSyntaxError(`${shown} is not a tool name; ${EXAMPLES}`);
    return { text, tool: text };
  }
  const tool = text.slice(0, open).trim();
  if (!text.endsWith(')')) throw new RuleSyntaxError(`${shown} does not end with ")"; ${EXAMPLES}`);
  if (!tool || !TOOL_PART.test(tool)) throw new RuleSyntaxError(`${shown} does not start with a tool name; ${EXAMPLES}`);
  const specifier = text.slice(open + 1, -1).trim();
  if (specifier === '')
    throw new RuleSyntaxError(`${shown} has nothing between the parentheses; write ${tool} alone for all of it`);
  // `Bash(*)` is `Bash`, as in Claude Code.
  return specifier === '*' ? { text, tool } : { text, tool, specifier };
}

/** The problem with a rule, or undefined when it reads (for schemas). */
export function ruleProblem(written: string): string | undefined {
  try {
    parseRule(written);
    return undefined;
  } catch (error) {
    if (error instanceof RuleSyntaxError) return error.message;
    throw error;
  }
}

/** Which tools a rule's tool part names, and what its specifier means. */
export type RuleTarget =
  /** Named tools, by outrider's names. */
  | { kind: 'tools'; tools: readonly string[]; family: RuleFamily }
  /** Every tool of an MCP server (`mcp__github`). */
  | { kind: 'server'; prefix: string }
  /** A tool name or pattern matched as it is (`mcp__github__*`, `read_*`, an MCP tool's full name). */
  | { kind: 'pattern'; pattern: string; family: RuleFamily }
  /** A Claude Code tool outrider does not have. */
  | { kind: 'none'; why: string };

/** The tools `tool` (a rule's tool part) names. */
export function ruleTarget(tool: string): RuleTarget {
  if (Object.hasOwn(CLAUDE_RULE_TOOLS, tool)) {
    const { tools, family } = CLAUDE_RULE_TOOLS[tool];
    return { kind: 'tools', tools, family };
  }
  if (CLAUDE_ONLY.has(tool)) return { kind: 'none', why: `outrider has no ${tool} tool` };
  // `mcp__server` alone (no tool part): Claude Code's way to name all of a server's tools.
  const server = /^mcp__([^_]+(?:_[^_]+)*)$/.exec(tool);
  if (server && !/[*?[]/.test(tool)) return { kind: 'server', prefix: `${tool}__` };
  if (Object.hasOwn(OWN_FAMILIES, tool)) return { kind: 'tools', tools: [tool], family: OWN_FAMILIES[tool] };
  return { kind: 'pattern', pattern: tool, family: 'plain' };
}
