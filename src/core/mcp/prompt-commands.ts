/**
 * A server's prompts as the `/` commands that run them (`/mcp__<server>__<prompt> args`), made
 * safe to show: what a server names and describes is untrusted text that reaches the screen.
 */
import { terminalLine } from '../platform/terminal-line.js';
import { oneLine } from '../platform/text.js';
import type { McpPromptInfo } from './connection.js';
import { MCP_TOOL_PREFIX, sanitizeNamePart } from './names.js';
import type { McpPromptCommand, McpServerStatus } from './types.js';

/** Prompts listed per server at most: a menu, not a dump of whatever a server sends. */
export const MAX_PROMPTS_PER_SERVER = 200;
/** A description is cut to one line of this many characters. */
export const MAX_PROMPT_DESCRIPTION = 200;
/** Longer names are not listed: no one types them, and they would crowd the menu. */
const MAX_PROMPT_NAME = 100;
const MAX_ARGUMENTS = 20;
const MAX_ARGUMENT_NAME = 40;

/** `/mcp__<server>__<prompt> args`, split; undefined when the text is not of that form. */
export function parsePromptCommand(text: string): { server: string; prompt: string; rest: string } | undefined {
  const match = /^\/mcp__([A-Za-z0-9_-]+?)__([A-Za-z0-9_.-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, server = '', prompt = '', rest = ''] = match;
  return { server, prompt, rest };
}

/**
 * The command that runs `prompt` of `server`: both names with the characters the syntax does
 * not take replaced (as tool names are). Undefined when that command would not parse back to
 * the same two names (a server name holding `__`, or ending in `_`), so could never run.
 */
export function promptCommandName(server: string, prompt: string): string | undefined {
  const serverPart = sanitizeNamePart(server);
  const promptPart = sanitizeNamePart(prompt);
  const command = `/${MCP_TOOL_PREFIX}${serverPart}__${promptPart}`;
  const parsed = parsePromptCommand(command);
  return parsed?.server === serverPart && parsed.prompt === promptPart ? command : undefined;
}

/**
 * The prompts a server lists, as commands with their descriptions and argument names on one
 * line each, escape sequences and control characters taken out. Names that would not run as a
 * command are skipped, a second prompt whose command is taken too (the first is the one that
 * runs), and the list ends at MAX_PROMPTS_PER_SERVER.
 */
export function promptCommands(server: string, infos: readonly McpPromptInfo[]): McpPromptCommand[] {
  const commands: McpPromptCommand[] = [];
  const seen = new Set<string>();
  for (const info of infos) {
    if (commands.length >= MAX_PROMPTS_PER_SERVER) break;
    const name: unknown = info?.name;
    if (typeof name !== 'string' || name === '' || name.length > MAX_PROMPT_NAME) continue;
    const command = promptCommandName(server, name);
    if (!command || seen.has(command)) continue;
    seen.add(command);
    const description = shownLine(info.description, MAX_PROMPT_DESCRIPTION);
    const args = (Array.isArray(info.arguments) ? info.arguments : []).slice(0, MAX_ARGUMENTS).flatMap((arg) => {
      const argName = shownLine(arg?.name, MAX_ARGUMENT_NAME);
      return argName ? [{ name: argName, required: arg.required === true }] : [];
    });
    commands.push({ command, ...(description ? { description } : {}), arguments: args });
  }
  return commands;
}

/** Line breaks folded to spaces first, so the lines of a description do not run together. */
const LINE_BREAKS = /[\r\n\u0085\u2028\u2029]+/g;

/** Untrusted text as one plain line of at most `max` characters: no escape sequences, controls or bidi marks. */
function shownLine(text: unknown, max: number): string {
  if (typeof text !== 'string') return '';
  // Bounded before it is scanned: a server may send megabytes.
  const flat = text.slice(0, max * 50).replace(LINE_BREAKS, ' ');
  return oneLine(terminalLine(flat, { keepStyle: false, maxChars: max * 4 }), max);
}

/** A command as the front ends other than the TUI list it: named without the `/`, as custom commands are. */
export interface ListedCommand {
  name: string;
  description: string;
  /** What it takes after its name (`<city> [state]`); empty when nothing. */
  argumentHint: string;
}

/** A prompt's arguments as typed after its command: `<required> [optional]`. */
export function promptArgumentHint(args: McpPromptCommand['arguments']): string {
  return args.map((arg) => (arg.required ? `<${arg.name}>` : `[${arg.name}]`)).join(' ');
}

/** The prompts of the running servers as listed commands (`mcp__<server>__<prompt>`), server by server. */
export function mcpPromptCommands(statuses: readonly McpServerStatus[]): ListedCommand[] {
  return statuses.flatMap((status) =>
    status.state !== 'ready'
      ? []
      : (status.prompts ?? []).map((prompt) => ({
          name: prompt.command.slice(1),
          description: prompt.description ?? '',
          argumentHint: promptArgumentHint(prompt.arguments),
        })),
  );
}
