import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { describeIssue, valueAt } from '../config/zod-issues.js';
import type { AgentDefinition, FileSource } from './agent-definition.js';
import { builtinDefinitions } from './builtin-agents.js';
import { parseFrontMatter } from './front-matter.js';
import { errnoCode } from '../tools/fs-errors.js';

export type { AgentDefinition, FileSource } from './agent-definition.js';

/** Folders of `*.md` definitions; a folder that does not exist is simply skipped. */
export interface DefinitionSources {
  /** `~/.outrider/agents/` */
  userDir?: string;
  /** `<project>/.outrider/agents/` */
  projectDir?: string;
  /** Claude Code's `agents/` folders, e.g. `~/.claude/agents/` then `<project>/.claude/agents/`; later wins. */
  claudeDirs?: string[];
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

/** Claude Code tool names that have an outrider equivalent. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = Object.freeze({
  Read: 'read_file',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  Bash: 'bash',
  Grep: 'grep',
  Glob: 'glob',
  LS: 'list_dir',
  NotebookRead: 'read_file',
});

/** Every MCP tool's name starts so (`mcp__<server>__<tool>`), as in Claude Code. */
const MCP_PREFIX = 'mcp__';

/** Claude Code's model tiers: they do not name any of our models, so they mean "the parent's model". */
const CLAUDE_MODEL_ALIASES: readonly string[] = Object.freeze(['sonnet', 'opus', 'haiku', 'inherit']);

/**
 * Built-ins, then `.claude` folders, then the user's folder, then the project's, each
 * overriding earlier definitions of the same name. Malformed files are skipped with one
 * warning each; everything else still loads.
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
    for (const definition of readFolder(dir, source, sources.knownTools, warnings)) {
      definitions.set(definition.name, definition);
    }
  }
  return { definitions, warnings };
}

function readFolder(dir: string, source: FileSource, knownTools: readonly string[] | undefined, warnings: string[]) {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (error) {
    const code = errnoCode(error);
    if (code !== 'ENOENT') {
      warnings.push(
        code === 'ENOTDIR'
          ? `${dir}: not a folder; agent definitions go in a folder of .md files`
          : `${dir}: cannot read the folder (${(error as Error).message})`,
      );
    }
    return [];
  }
  const byName = new Map<string, AgentDefinition>();
  // Plain code-unit order, not locale order, so every machine loads the same way.
  for (const file of entries.filter((name) => name.endsWith('.md') && !name.startsWith('.')).sort()) {
    const path = join(dir, file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      warnings.push(`${path}: cannot read the file (${(error as Error).message})`);
      continue;
    }
    const parsed = parseDefinition(text, { path, source, knownTools });
    warnings.push(...parsed.warnings);
    if (!parsed.definition) continue;
    const earlier = byName.get(parsed.definition.name);
    if (earlier) {
      warnings.push(`${path}: name "${parsed.definition.name}" is also used by ${earlier.path}; using ${path}`);
    }
    byName.set(parsed.definition.name, parsed.definition);
  }
  return byName.values();
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
  z.preprocess(notGiven, textField(expected).refine((value) => value !== '', { error: expected }));

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

/** A list of names, or Claude Code's comma string `Read, Grep, Glob`. */
const toolList = () =>
  z.preprocess(
    notGiven,
    z
      .union([z.array(z.union([z.string(), z.number(), z.null()])), z.string()], {
        error: 'a list of tool names such as [read_file, grep]',
      })
      .transform((value) => (typeof value === 'string' ? value.split(',') : value.filter((item) => item !== null)))
      .transform((items) => items.map((item) => String(item).trim()).filter(Boolean))
      .optional(),
  );

const frontMatterSchema = z.object({
  name: requiredText('text').pipe(
    z.string().regex(/^[a-z0-9_-]+$/, { error: 'lowercase letters, digits, "-" or "_" (e.g. "code-reviewer")' }),
  ),
  description: requiredText('text'),
  tools: toolList(),
  disallowed_tools: toolList(),
  disallowedTools: toolList(),
  model: z.preprocess(notGiven, textField('a model id or "inherit"').optional()),
  max_turns: positiveWholeNumber(),
  max_total_tokens: positiveWholeNumber(),
  max_duration_s: positiveWholeNumber(),
});

const REQUIRED_FIELDS: readonly string[] = Object.freeze(['name', 'description']);

/** Parses one definition file. A malformed file yields no definition and exactly one warning. */
export function parseDefinition(
  text: string,
  options: { path: string; source: FileSource; knownTools?: readonly string[] },
): { definition: AgentDefinition | undefined; warnings: string[] } {
  const { path, source } = options;
  const refuse = (message: string) => ({ definition: undefined, warnings: [`${path}: ${message}`] });
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) return refuse(parsed.error);
  const data = parsed.data;
  if (Object.hasOwn(data, 'disallowed_tools') && Object.hasOwn(data, 'disallowedTools')) {
    return refuse('disallowed_tools: given twice, also as "disallowedTools"; keep one');
  }
  const result = frontMatterSchema.safeParse(data);
  if (!result.success) return refuse(issueMessage(result.error.issues[0], data));
  const fields = result.data;
  if (parsed.body === '') return refuse('missing the system prompt: write it after the closing "---"');

  const warnings: string[] = [];
  const known = (options.knownTools ?? [...ALL_TOOLS, 'read_result']).filter((tool) => !tool.startsWith('agent_'));
  const resolve = (key: string, names: string[] | undefined) => {
    if (names === undefined) return undefined;
    const { kept, dropped } = resolveTools(names, source, known);
    if (dropped.length) warnings.push(`${path}: ${key}: ${droppedMessage(dropped, source, known)}`);
    return kept;
  };
  const disallowedKey = Object.hasOwn(data, 'disallowedTools') ? 'disallowedTools' : 'disallowed_tools';
  const model = fields.model ?? '';
  const definition: AgentDefinition = {
    name: fields.name,
    description: fields.description,
    systemPrompt: parsed.body,
    // Claude Code reads a missing `tools:` as "every tool"; ours as the read-only default.
    tools: resolve('tools', fields.tools) ?? (source === 'claude' ? [...ALL_TOOLS] : undefined),
    disallowedTools: resolve(disallowedKey, fields.disallowed_tools ?? fields.disallowedTools) ?? [],
    model: model === '' || CLAUDE_MODEL_ALIASES.includes(model) ? 'inherit' : model,
    source,
    path,
  };
  if (fields.max_turns !== undefined) definition.maxTurns = fields.max_turns;
  if (fields.max_total_tokens !== undefined) definition.maxTotalTokens = fields.max_total_tokens;
  if (fields.max_duration_s !== undefined) definition.maxDurationMs = fields.max_duration_s * 1000;
  return { definition, warnings };
}

/** `missing "name" …` for an absent or empty required field, else `field: expected …, got …`. */
function issueMessage(issue: z.core.$ZodIssue, data: Record<string, unknown>): string {
  const key = String(issue.path[0] ?? '');
  const value = valueAt(data, issue.path);
  const blank = value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
  if (REQUIRED_FIELDS.includes(key) && blank) return `missing "${key}" in the front matter`;
  return describeIssue(issue, data).text;
}

function resolveTools(names: string[], source: FileSource, known: readonly string[]) {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const name of names) {
    const claudeName = source === 'claude' && Object.hasOwn(CLAUDE_TOOL_NAMES, name) ? CLAUDE_TOOL_NAMES[name] : undefined;
    // MCP tools are not known when definitions load (servers start later): `mcp__…` names and patterns are kept.
    const tool = claudeName ?? (known.includes(name) || name.startsWith(MCP_PREFIX) ? name : undefined);
    if (tool === undefined) dropped.push(name);
    else if (!kept.includes(tool)) kept.push(tool);
  }
  return { kept, dropped };
}

function droppedMessage(dropped: string[], source: FileSource, known: readonly string[]): string {
  const list = dropped.map((name) => JSON.stringify(name)).join(', ');
  const nesting = dropped.some((name) => name.startsWith('agent_')) ? '; sub-agents cannot start sub-agents' : '';
  if (source === 'claude') return `dropped ${list}: no outrider equivalent${nesting}`;
  const noun = dropped.length === 1 ? 'tool' : 'tools';
  return `dropped unknown ${noun} ${list}${nesting} (known tools: ${known.join(', ')})`;
}
