import { sep } from 'node:path';
import * as z from 'zod';
import { describeIssue, valueAt } from '../config/zod-issues.js';
import { isWithin } from '../platform/paths.js';
import { AGENT_COLORS, type AgentDefinition, type FileSource } from './agent-definition.js';
import { builtinDefinitions } from './builtin-agents.js';
import {
  PERMISSION_MODE_WORDS,
  childPermissions,
  claudeAllowed,
  claudeDenied,
  agentColor,
  ignoredFields,
  isModelAlias,
  splitToolList,
  unescapeDescription,
} from './claude-compat.js';
import { readDefinitionFolder } from './definition-files.js';
import { parseFrontMatter } from './front-matter.js';
import { applyScopedFields, scopedFieldSchemas } from './scoped-fields.js';

export type { AgentColor, AgentDefinition, ChildPermissions, FileSource } from './agent-definition.js';
export { CLAUDE_TOOL_NAMES } from './claude-compat.js';

/** Folders of `*.md` definitions (sub-folders included); a folder that does not exist is simply skipped. */
export interface DefinitionSources {
  /** `~/.outrider/agents/` */
  userDir?: string;
  /** `<project>/.outrider/agents/` */
  projectDir?: string;
  /** Claude Code's `agents/` folders, e.g. `~/.claude/agents/` then `<project>/.claude/agents/`; later wins. */
  claudeDirs?: string[];
  /** The project's folder: a folder under it must really lie in it (a repository's link out is not followed). */
  projectRoot?: string;
  /** Tool names a definition may list; defaults to the built-in tools plus `read_result`. */
  knownTools?: readonly string[];
}

/** What a child gets when its definition names no tools. */
export const DEFAULT_READ_ONLY_TOOLS: readonly string[] = Object.freeze(['read_file', 'grep', 'glob', 'list_dir']);

/** Every built-in tool: what a Claude Code agent without `tools:` ("all tools") maps to. */
export const ALL_TOOLS: readonly string[] = Object.freeze([
  'read_file',
  'write_file',
  'edit_file',
  'bash',
  'grep',
  'glob',
  'list_dir',
]);

/**
 * Built-ins, then `.claude` folders, then the user's folder, then the project's, each
 * overriding earlier definitions of the same name. Malformed files are skipped with one
 * warning each; everything else still loads. Each file gives at most one warning line.
 */
export function loadDefinitions(sources: DefinitionSources): {
  definitions: Map<string, AgentDefinition>;
  warnings: string[];
} {
  const definitions = new Map<string, AgentDefinition>();
  const warnings: string[] = [];
  for (const definition of builtinDefinitions()) definitions.set(definition.name, definition);
  const layers: Array<[string | undefined, FileSource]> = [
    ...(sources.claudeDirs ?? []).map((dir): [string, FileSource] => [dir, 'claude']),
    [sources.userDir, 'user'],
    [sources.projectDir, 'project'],
  ];
  for (const [dir, source] of layers) {
    if (!dir) continue;
    const within = sources.projectRoot !== undefined && isWithin(sources.projectRoot, dir) ? sources.projectRoot : undefined;
    for (const definition of readFolder(dir, source, { knownTools: sources.knownTools, within }, warnings)) {
      definitions.set(definition.name, definition);
    }
  }
  return { definitions, warnings };
}

function readFolder(
  dir: string,
  source: FileSource,
  options: { knownTools: readonly string[] | undefined; within: string | undefined },
  warnings: string[],
) {
  const folder = readDefinitionFolder(dir, { within: options.within });
  warnings.push(...folder.warnings);
  const byName = new Map<string, AgentDefinition>();
  for (const { path, text } of folder.files) {
    if (isDocumentation(path, text)) continue;
    const parsed = parseDefinition(text, { path, source, knownTools: options.knownTools });
    warnings.push(...parsed.warnings);
    if (!parsed.definition) continue;
    if (options.within !== undefined) parsed.definition.fromRepository = true;
    const earlier = byName.get(parsed.definition.name);
    if (earlier) {
      warnings.push(`${path}: name "${parsed.definition.name}" is also used by ${earlier.path}; using ${path}`);
    }
    byName.set(parsed.definition.name, parsed.definition);
  }
  return byName.values();
}

/**
 * Collections of agents keep a README.md (CONTRIBUTING.md…) beside them: a capitalised name
 * and no front matter is documentation, skipped without a word. Any other file without
 * front matter is reported.
 */
function isDocumentation(path: string, text: string): boolean {
  const name = path.slice(path.lastIndexOf(sep) + 1, -'.md'.length);
  return /^[A-Z][A-Z0-9_-]*$/.test(name) && !/^\s*---/.test(text);
}

// The front matter's schema. Each node carries the "expected …" phrase the user reads (see
// config/zod-issues.ts); YAML has already typed the values, so numbers, lists and text arrive
// as such. An empty value (`model:`) is YAML's null and means "not given". Keys the schema does
// not name (Claude Code's `color:`, `hooks:`…) are ignored.

const notGiven = (value: unknown) => (value === null ? undefined : value);

/** Text, trimmed; a number is taken as the text of what YAML read (`name: 7` is "7"). */
const textField = (expected: string) =>
  z.union([z.string(), z.number()], { error: expected }).transform((value) => String(value).trim());

const requiredText = (expected: string) =>
  z.preprocess(
    notGiven,
    textField(expected).refine((value) => value !== '', { error: expected }),
  );

/** A positive whole number; `"5"` is accepted, as a quoted number is still a number to the writer. */
const positiveWholeNumber = () => {
  const expected = 'a positive whole number';
  const digits = (value: unknown) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value);
  const number = z
    .number({ error: expected })
    .int({ error: expected })
    .positive({ error: expected })
    .max(Number.MAX_SAFE_INTEGER, { error: expected });
  return z.preprocess((value) => digits(notGiven(value)), number.optional());
};

/** A positive amount (dollars); `"0.5"` is accepted, as with whole numbers. */
const positiveAmount = () => {
  const expected = 'a positive number of dollars, such as 0.5';
  const amount = (value: unknown) =>
    typeof value === 'string' && /^\s*\$?\d+(\.\d+)?\s*$/.test(value) ? Number(value.trim().replace('$', '')) : value;
  const number = z.number({ error: expected }).positive({ error: expected }).max(1_000_000, { error: expected });
  return z.preprocess((value) => amount(notGiven(value)), number.optional());
};

/** A list of names, or Claude Code's comma string `Read, Grep, Agent(worker, researcher)`. */
const toolList = () =>
  z.preprocess(
    notGiven,
    z
      .union([z.array(z.union([z.string(), z.number(), z.null()])), z.string()], {
        error: 'a list of tool names such as [read_file, grep]',
      })
      .transform((value) => (typeof value === 'string' ? splitToolList(value) : value.filter((item) => item !== null)))
      .transform((items) => items.map((item) => String(item).trim()).filter(Boolean))
      .optional(),
  );

const permissionMode = () =>
  z.preprocess(
    notGiven,
    z
      .string({ error: `one of ${PERMISSION_MODE_WORDS}` })
      .refine((value) => childPermissions(value) !== undefined, { error: `one of ${PERMISSION_MODE_WORDS}` })
      .optional(),
  );

const frontMatterSchema = z.object({
  name: requiredText('text').pipe(
    // Dots as in `dotnet-framework-4.8-expert`; never a path separator, never a leading dot.
    z.string().regex(/^[a-z0-9_][a-z0-9._-]*$/, {
      error: 'lowercase letters, digits, "-", "_" or "." (e.g. "code-reviewer")',
    }),
  ),
  description: requiredText('text'),
  tools: toolList(),
  disallowed_tools: toolList(),
  disallowedTools: toolList(),
  model: z.preprocess(notGiven, textField('a model id or "inherit"').optional()),
  max_turns: positiveWholeNumber(),
  maxTurns: positiveWholeNumber(),
  max_total_tokens: positiveWholeNumber(),
  max_duration_s: positiveWholeNumber(),
  // Caps (jobs/job-caps.ts): a job's dollars (with the jobs it starts), its tool calls, its time in seconds.
  max_cost_usd: positiveAmount(),
  maxCostUsd: positiveAmount(),
  max_tool_calls: positiveWholeNumber(),
  maxToolCalls: positiveWholeNumber(),
  timeout: positiveWholeNumber(),
  permission_mode: permissionMode(),
  permissionMode: permissionMode(),
  isolation: z.preprocess(notGiven, z.enum(['worktree'], { error: '"worktree" (or leave it out)' }).optional()),
  // Claude Code's field: how hard its jobs' model reasons, over the session's (providers/effort.ts).
  effort: z.preprocess(
    (value) => (typeof value === 'string' ? value.trim().toLowerCase() : notGiven(value)),
    z.enum(['low', 'medium', 'high', 'max'], { error: 'one of low, medium, high, max' }).optional(),
  ),
  runsOn: z.preprocess(
    notGiven,
    z
      .union([z.array(z.string()), z.string()], { error: 'a list of worker labels such as [gpu]' })
      .transform((value) => (typeof value === 'string' ? value.split(',') : value).map((l) => l.trim()).filter(Boolean))
      .optional(),
  ),
  // skills, mcpServers, hooks, memory: what each job of the agent starts with (scoped-fields.ts).
  ...scopedFieldSchemas,
});

const REQUIRED_FIELDS: readonly string[] = Object.freeze(['name', 'description']);

/** Fields with two spellings, ours and Claude Code's; a file gives one of them. */
const SPELLINGS: ReadonlyArray<readonly [string, string]> = [
  ['disallowed_tools', 'disallowedTools'],
  ['max_turns', 'maxTurns'],
  ['max_cost_usd', 'maxCostUsd'],
  ['max_tool_calls', 'maxToolCalls'],
  ['max_duration_s', 'timeout'],
  ['permission_mode', 'permissionMode'],
];

/**
 * Parses one definition file. A malformed file yields no definition and exactly one warning;
 * a loaded one at most one warning line, gathering what was dropped or ignored.
 */
export function parseDefinition(
  text: string,
  options: { path: string; source: FileSource; knownTools?: readonly string[] },
): { definition: AgentDefinition | undefined; warnings: string[] } {
  const { path, source } = options;
  const refuse = (message: string) => ({ definition: undefined, warnings: [`${path}: ${message}`] });
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) return refuse(parsed.error);
  const data = parsed.data;
  const twice = SPELLINGS.find(([ours, claude]) => Object.hasOwn(data, ours) && Object.hasOwn(data, claude));
  if (twice) return refuse(`${twice[0]}: given twice, also as "${twice[1]}"; keep one`);
  const result = frontMatterSchema.safeParse(data);
  if (!result.success) return refuse(issueMessage(result.error.issues[0], data));
  const fields = result.data;
  if (parsed.body === '') return refuse('missing the system prompt: write it after the closing "---"');

  const notes: string[] = [];
  const known = (options.knownTools ?? [...ALL_TOOLS, 'read_result']).filter((tool) => !tool.startsWith('agent_'));
  const spelled = (ours: string, claude: string) => (Object.hasOwn(data, claude) ? claude : ours);
  const allowed = fields.tools && allowedTools(fields.tools, source, known);
  if (allowed?.note) notes.push(`tools: ${allowed.note}`);
  const denied = deniedTools(fields.disallowed_tools ?? fields.disallowedTools ?? [], source, known);
  if (denied.note) notes.push(`${spelled('disallowed_tools', 'disallowedTools')}: ${denied.note}`);
  const ignored = ignoredFields(data);
  if (ignored.length) notes.push(`ignored ${ignored.join(', ')}: no meaning for an outrider sub-agent`);

  const mode = fields.permission_mode ?? fields.permissionMode;
  const definition: AgentDefinition = {
    name: fields.name,
    description: unescapeDescription(fields.description),
    systemPrompt: parsed.body,
    // Claude Code reads a missing `tools:` as "every tool"; ours as the read-only default.
    tools: allowed?.kept ?? (source === 'claude' ? [...ALL_TOOLS] : undefined),
    disallowedTools: denied.kept,
    // An alias (`sonnet`) is kept as written: the child runs it on the parent's model (childModel).
    model: fields.model || 'inherit',
    source,
    path,
  };
  const maxTurns = fields.max_turns ?? fields.maxTurns;
  if (maxTurns !== undefined) definition.maxTurns = maxTurns;
  if (fields.max_total_tokens !== undefined) definition.maxTotalTokens = fields.max_total_tokens;
  const seconds = fields.max_duration_s ?? fields.timeout;
  if (seconds !== undefined) definition.maxDurationMs = seconds * 1000;
  const maxCostUsd = fields.max_cost_usd ?? fields.maxCostUsd;
  if (maxCostUsd !== undefined) definition.maxCostUsd = maxCostUsd;
  const maxToolCalls = fields.max_tool_calls ?? fields.maxToolCalls;
  if (maxToolCalls !== undefined) definition.maxToolCalls = maxToolCalls;
  if (mode !== undefined) definition.permissions = childPermissions(mode);
  if (fields.isolation) definition.isolation = fields.isolation;
  if (fields.effort) definition.effort = fields.effort;
  if (fields.runsOn?.length) definition.runsOn = fields.runsOn;
  if (data.color !== undefined && data.color !== null) {
    const color = agentColor(data.color);
    if (color) definition.color = color;
    else notes.push(`color: expected one of ${AGENT_COLORS.join(', ')}; ignored`);
  }
  notes.push(...applyScopedFields(definition, fields));
  return { definition, warnings: notes.length ? [`${path}: ${notes.join('; ')}`] : [] };
}

/** The model a child of `definition` runs on: the parent's for `inherit` and for Claude Code's aliases. */
export function childModel(definition: Pick<AgentDefinition, 'model'>, parentModel: string): string {
  const model = definition.model.trim();
  return model === '' || model === 'inherit' || isModelAlias(model) ? parentModel : model;
}

/** `missing "name" …` for an absent or empty required field, else `field: expected …, got …`. */
function issueMessage(issue: z.core.$ZodIssue, data: Record<string, unknown>): string {
  const key = String(issue.path[0] ?? '');
  const value = valueAt(data, issue.path);
  const blank = value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
  if (REQUIRED_FIELDS.includes(key) && blank) return `missing "${key}" in the front matter`;
  return describeIssue(issue, data).text;
}

/** `tools:` as outrider tools; `note` names what was dropped and why, grouped by reason. */
function allowedTools(names: string[], source: FileSource, known: readonly string[]): { kept: string[]; note?: string } {
  const kept: string[] = [];
  const dropped = new Map<string, string[]>();
  const drop = (reason: string, name: string) => dropped.set(reason, [...(dropped.get(reason) ?? []), name]);
  for (const name of names) {
    // MCP tools are not known when definitions load (servers start later): `mcp__…` names and patterns are kept.
    if (name.startsWith('mcp__')) {
      if (!kept.includes(name)) kept.push(name);
      continue;
    }
    const claude = source === 'claude' && !known.includes(name) ? claudeAllowed(name) : undefined;
    const tool = claude ? ('tool' in claude ? claude.tool : undefined) : known.includes(name) ? name : undefined;
    if (tool !== undefined) {
      if (!kept.includes(tool)) kept.push(tool);
    } else if (claude && 'reason' in claude) drop(claude.reason, name);
    else drop(name.startsWith('agent_') ? 'sub-agents cannot start sub-agents' : 'unknown', name);
  }
  if (dropped.size === 0) return { kept };
  const quoted = (list: string[]) => list.map((name) => JSON.stringify(name)).join(', ');
  const clauses = [...dropped].map(([reason, list]) => {
    if (reason !== 'unknown') return `${quoted(list)}: ${reason}`;
    return `unknown ${list.length === 1 ? 'tool' : 'tools'} ${quoted(list)} (known tools: ${known.join(', ')})`;
  });
  return { kept, note: `dropped ${clauses.join('; ')}` };
}

/**
 * `disallowedTools:` as outrider tools to remove. Children never get the agent tools, and a
 * Claude Code tool outrider lacks is not there to remove, so those need no word; a name
 * nobody knows might be a typo that leaves a tool in, so it is reported.
 */
function deniedTools(names: string[], source: FileSource, known: readonly string[]): { kept: string[]; note?: string } {
  const kept: string[] = [];
  const notes: string[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    let tool: string | undefined;
    if (known.includes(name)) tool = name;
    else if (source === 'claude') {
      const denied = claudeDenied(name);
      tool = denied.tool;
      if (denied.note) notes.push(denied.note);
    } else if (!name.startsWith('agent_')) unknown.push(name);
    if (tool !== undefined && !kept.includes(tool)) kept.push(tool);
  }
  if (unknown.length) {
    const quoted = unknown.map((name) => JSON.stringify(name)).join(', ');
    notes.push(`unknown ${unknown.length === 1 ? 'tool' : 'tools'} ${quoted} not removed (known tools: ${known.join(', ')})`);
  }
  return notes.length ? { kept, note: notes.join('; ') } : { kept };
}
