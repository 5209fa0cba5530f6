import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinDefinitions } from './builtin-agents.js';
import { type FrontMatterField, parseFrontMatter, type YamlValue } from './front-matter.js';

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

export type FileSource = Exclude<AgentDefinition['source'], 'builtin'>;

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

/** Claude Code's model tiers: they do not name any of our models, so they mean "the parent's model". */
const CLAUDE_MODEL_ALIASES: readonly string[] = Object.freeze(['sonnet', 'opus', 'haiku', 'inherit']);

const NAME_PATTERN = /^[a-z0-9_-]+$/;

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
    const code = (error as NodeJS.ErrnoException).code;
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

class DefinitionError extends Error {}

/** Parses one definition file. A malformed file yields no definition and exactly one warning. */
export function parseDefinition(
  text: string,
  options: { path: string; source: FileSource; knownTools?: readonly string[] },
): { definition: AgentDefinition | undefined; warnings: string[] } {
  const { path, source } = options;
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) return { definition: undefined, warnings: [`${path}: ${parsed.error}`] };
  const fields = parsed.fields;
  const value = (key: string): YamlValue => fieldValue(key, fields.get(key));
  const warnings: string[] = [];
  try {
    const name = requiredText('name', value('name'));
    if (!NAME_PATTERN.test(name)) {
      throw new DefinitionError(`name: expected lowercase letters, digits, "-" or "_" (e.g. "code-reviewer"), got ${JSON.stringify(name)}`);
    }
    const description = requiredText('description', value('description'));
    const tools = toolList('tools', value('tools'));
    const disallowedKey = fields.has('disallowed_tools') ? 'disallowed_tools' : 'disallowedTools';
    if (fields.has('disallowed_tools') && fields.has('disallowedTools')) {
      throw new DefinitionError('disallowed_tools: given twice, also as "disallowedTools"; keep one');
    }
    const disallowed = toolList(disallowedKey, value(disallowedKey));
    const model = modelOf(value('model'));
    const maxTurns = positiveInteger('max_turns', value('max_turns'));
    const maxTotalTokens = positiveInteger('max_total_tokens', value('max_total_tokens'));
    const maxDurationS = positiveInteger('max_duration_s', value('max_duration_s'));
    if (parsed.body === '') {
      throw new DefinitionError('missing the system prompt: write it after the closing "---"');
    }

    const known = (options.knownTools ?? [...ALL_TOOLS, 'read_result']).filter((tool) => !tool.startsWith('agent_'));
    const resolve = (key: string, names: string[] | undefined) => {
      if (names === undefined) return undefined;
      const { kept, dropped } = resolveTools(names, source, known);
      if (dropped.length) warnings.push(`${path}: ${key}: ${droppedMessage(dropped, source, known)}`);
      return kept;
    };
    const definition: AgentDefinition = {
      name,
      description,
      systemPrompt: parsed.body,
      // Claude Code reads a missing `tools:` as "every tool"; ours as the read-only default.
      tools: resolve('tools', tools) ?? (source === 'claude' ? [...ALL_TOOLS] : undefined),
      disallowedTools: resolve(disallowedKey, disallowed) ?? [],
      model,
      source,
      path,
    };
    if (maxTurns !== undefined) definition.maxTurns = maxTurns;
    if (maxTotalTokens !== undefined) definition.maxTotalTokens = maxTotalTokens;
    if (maxDurationS !== undefined) definition.maxDurationMs = maxDurationS * 1000;
    return { definition, warnings };
  } catch (error) {
    if (error instanceof DefinitionError) return { definition: undefined, warnings: [`${path}: ${error.message}`] };
    throw error;
  }
}

function fieldValue(key: string, field: FrontMatterField | undefined): YamlValue {
  if (!field) return null;
  if (!field.ok) throw new DefinitionError(`${key}: ${field.error}`);
  return field.value;
}

function requiredText(key: string, value: YamlValue): string {
  if (Array.isArray(value)) throw new DefinitionError(`${key}: expected text, got a list`);
  const text = value === null ? '' : String(value).trim();
  if (text === '') throw new DefinitionError(`missing "${key}" in the front matter`);
  return text;
}

/** A list, or Claude Code's comma string `Read, Grep, Glob`; null means "not given". */
function toolList(key: string, value: YamlValue): string[] | undefined {
  if (value === null) return undefined;
  if (Array.isArray(value)) return value.filter((item) => item !== null).map((item) => String(item).trim()).filter(Boolean);
  if (typeof value === 'string') return value.split(',').map((item) => item.trim()).filter(Boolean);
  throw new DefinitionError(`${key}: expected a list of tool names such as [read_file, grep], got ${describe(value)}`);
}

function modelOf(value: YamlValue): string {
  if (value === null) return 'inherit';
  if (Array.isArray(value) || typeof value === 'boolean') {
    throw new DefinitionError(`model: expected a model id or "inherit", got ${describe(value)}`);
  }
  const model = String(value).trim();
  return model === '' || CLAUDE_MODEL_ALIASES.includes(model) ? 'inherit' : model;
}

function positiveInteger(key: string, value: YamlValue): number | undefined {
  if (value === null) return undefined;
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number <= 0) {
    throw new DefinitionError(`${key}: expected a positive whole number, got ${describe(value)}`);
  }
  return number;
}

function describe(value: YamlValue): string {
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function resolveTools(names: string[], source: FileSource, known: readonly string[]) {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const name of names) {
    const claudeName = source === 'claude' && Object.hasOwn(CLAUDE_TOOL_NAMES, name) ? CLAUDE_TOOL_NAMES[name] : undefined;
    const tool = claudeName ?? (known.includes(name) ? name : undefined);
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
