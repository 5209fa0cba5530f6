import path from 'node:path';
import { claudeAllowed, splitToolList } from '../agents/claude-compat.js';
import { parseRule, ruleProblem, ruleTarget } from '../permissions/rules.js';
import { readDefinitionFolder } from '../agents/definition-files.js';
import { parseFrontMatter } from '../agents/front-matter.js';
import { oneLine } from '../platform/text.js';
import { isWithin } from '../platform/paths.js';

/** Where a command file was found: the user's own folders, or the project's (a repository's). */
export type CommandSource = 'user' | 'project';

/** A custom slash command: a Markdown file whose body becomes the prompt. */
export interface CustomCommand {
  /** As typed after `/`: the file's path under its folder, sub-folders as namespaces (`frontend:component`). */
  name: string;
  description: string;
  argumentHint?: string;
  /**
   * Tools (outrider names or patterns) that run without asking while the command's turn runs:
   * empty unless the file comes from a user folder or a trusted project.
   */
  allowedTools: string[];
  /** `allowed-tools` entries the file gives that are not applied, each with why. */
  droppedTools: string[];
  body: string;
  path: string;
  source: CommandSource;
}

/** A folder of command files and whose it is. */
export interface CommandFolder {
  dir: string;
  source: CommandSource;
}

/** What a command is shown as in a menu: no body. */
export type CommandSummary = Pick<CustomCommand, 'name' | 'description' | 'argumentHint' | 'source'>;

/** One segment of a command name: a file or folder name as people write them. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A description longer than this is cut for menus and the catalogue. */
const MAX_DESCRIPTION = 300;

/**
 * Reads command folders in order, a later folder overriding an earlier one's command of the
 * same name (Claude Code's `~/.claude/commands`, `.claude/commands`, then outrider's). A
 * project's `allowed-tools` count only when `projectTrusted`: the body is only text for the
 * model, but those tools then run without asking.
 */
export function loadCommands(
  folders: readonly CommandFolder[],
  options: { projectRoot?: string; projectTrusted: boolean; knownTools?: readonly string[] },
): { commands: Map<string, CustomCommand>; warnings: string[] } {
  const commands = new Map<string, CustomCommand>();
  const warnings: string[] = [];
  const untrustedTools: string[] = [];
  for (const folder of folders) {
    const within =
      folder.source === 'project' && options.projectRoot !== undefined && isWithin(options.projectRoot, folder.dir)
        ? options.projectRoot
        : undefined;
    const read = readDefinitionFolder(folder.dir, { within, noun: 'command' });
    warnings.push(...read.warnings);
    for (const file of read.files) {
      const name = commandName(folder.dir, file.path);
      if (!name) {
        warnings.push(
          `${file.path}: not a command name; use letters, digits, "-", "_" and "." in file and folder names (a sub-folder becomes "folder:")`,
        );
        continue;
      }
      const parsed = parseCommand(file.text, {
        name,
        path: file.path,
        source: folder.source,
        applyTools: folder.source === 'user' || options.projectTrusted,
        knownTools: options.knownTools,
      });
      if ('error' in parsed) {
        warnings.push(`${file.path}: ${parsed.error}`);
        continue;
      }
      if (parsed.warning) warnings.push(`${file.path}: ${parsed.warning}`);
      if (parsed.untrustedTools) untrustedTools.push(`/${name}`);
      commands.set(name, parsed.command);
    }
  }
  if (untrustedTools.length) {
    warnings.push(
      `allowed-tools of the project's commands ${untrustedTools.join(', ')} are not applied: this folder is not trusted ` +
        '(the commands still run, asking as usual; --trust applies them for one run)',
    );
  }
  return { commands, warnings };
}

/** `frontend/component.md` under the folder → `frontend:component`; undefined when a part is not a name. */
export function commandName(dir: string, file: string): string | undefined {
  const relative = path.relative(dir, file);
  if (!relative.endsWith('.md')) return undefined;
  const parts = relative.slice(0, -'.md'.length).split(path.sep);
  if (parts.length === 0 || !parts.every((part) => SEGMENT.test(part))) return undefined;
  return parts.join(':');
}

/** One command file's text: optional front matter, then the body. */
export function parseCommand(
  text: string,
  meta: { name: string; path: string; source: CommandSource; applyTools: boolean; knownTools?: readonly string[] },
): { command: CustomCommand; warning?: string; untrustedTools: boolean } | { error: string } {
  let data: Record<string, unknown> = {};
  let body = text.replace(/^\uFEFF/, '').trim();
  if (/^---\s*(\r?\n|$)/.test(body)) {
    const parsed = parseFrontMatter(quoteArgumentHint(body));
    if (!parsed.ok) return { error: parsed.error };
    data = parsed.data;
    body = parsed.body;
  }
  const notes: string[] = [];
  const description = textOf(data.description, 'description', notes) ?? firstLine(body);
  const argumentHint = textOf(data['argument-hint'], 'argument-hint', notes);
  const model = textOf(data.model, 'model', notes);
  if (model) notes.push(`ignored model "${model}": commands run on the session's model`);
  const tools = toolsOf(data['allowed-tools'], notes, meta.knownTools);
  const untrustedTools = !meta.applyTools && tools.allowed.length > 0;
  if (!body) notes.push('the body is empty: the command sends its arguments alone');
  return {
    command: {
      name: meta.name,
      description: oneLine(description || `(${meta.source} command)`, MAX_DESCRIPTION),
      ...(argumentHint ? { argumentHint: oneLine(argumentHint, 100) } : {}),
      allowedTools: meta.applyTools ? tools.allowed : [],
      droppedTools: tools.dropped,
      body,
      path: meta.path,
      source: meta.source,
    },
    ...(notes.length ? { warning: notes.join('; ') } : {}),
    untrustedTools,
  };
}

/**
 * Claude Code's files write `argument-hint: [message]` or `[pr] [priority]` unquoted: YAML
 * reads the first as a list and refuses the second. The line is quoted before parsing.
 */
function quoteArgumentHint(text: string): string {
  const end = text.search(/\n(---|\.\.\.)[ \t]*(\r?\n|$)/);
  if (end < 0) return text;
  return quoteHintLine(text.slice(0, end)) + text.slice(end);
}

function quoteHintLine(block: string): string {
  return block.replace(
    /^(argument-hint[ \t]*:[ \t]*)(\[[^\n]*?)[ \t]*$/m,
    (_all, key: string, value: string) => `${key}${JSON.stringify(value)}`,
  );
}

function textOf(value: unknown, field: string, notes: string[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value).trim();
  notes.push(`${field}: expected text; ignored`);
  return undefined;
}

function firstLine(body: string): string {
  return (body.split('\n').find((line) => line.trim()) ?? '').replace(/^#+\s*/, '').trim();
}

/** A rule with a specifier a rule can be limited by (a command, a path, a domain), not a whole tool. */
function isNarrowRule(name: string): boolean {
  if (ruleProblem(name)) return false;
  const rule = parseRule(name);
  const target = ruleTarget(rule.tool);
  return rule.specifier !== undefined && target.kind === 'tools' && target.family !== 'plain' && target.family !== 'agent';
}

/** `allowed-tools`: a comma string or a list, Claude Code's names or outrider's. */
function toolsOf(
  value: unknown,
  notes: string[],
  knownTools: readonly string[] | undefined,
): { allowed: string[]; dropped: string[] } {
  if (value === undefined || value === null) return { allowed: [], dropped: [] };
  const names =
    typeof value === 'string'
      ? splitToolList(value)
      : Array.isArray(value) && value.every((v) => typeof v === 'string')
        ? value.map((v) => v.trim()).filter(Boolean)
        : undefined;
  if (!names) {
    notes.push('allowed-tools: expected a list of tool names; ignored');
    return { allowed: [], dropped: [] };
  }
  const allowed: string[] = [];
  const dropped: string[] = [];
  for (const name of names) {
    if (name.startsWith('mcp__') || knownTools?.includes(name)) {
      allowed.push(name);
      continue;
    }
    // `Bash(git status:*)`, `Edit(src/**)`: a permission rule, applied as written (permissions/rule-match.ts).
    if (isNarrowRule(name)) {
      allowed.push(name);
      continue;
    }
    const mapped = claudeAllowed(name);
    if ('tool' in mapped) allowed.push(mapped.tool);
    else dropped.push(`${JSON.stringify(name)}: ${mapped.reason}`);
  }
  if (dropped.length) notes.push(`allowed-tools: not applied ${dropped.join(', ')}`);
  return { allowed: [...new Set(allowed)], dropped };
}
