/** Claude Code's command-line flags as outrider takes them (docs/claude-code.md has the table). */
import { InvalidArgumentError, Option } from 'commander';

/** A comma- or space-separated list whose items may hold commas in parentheses: `Bash(git add:*),Read`. */
export function ruleList(value: string, previous: string[] = []): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of value) {
    if (c === '(') depth++;
    if (c === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (c === ',' || c === ' ')) {
      if (current.trim()) items.push(current.trim());
      current = '';
    } else current += c;
  }
  if (current.trim()) items.push(current.trim());
  return [...previous, ...items];
}

/** `--setting-sources user,project,local` (empty: none of them). */
function settingSources(value: string): string[] {
  const sources = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = sources.find((s) => !['user', 'project', 'local'].includes(s));
  if (unknown)
    throw new InvalidArgumentError(`unknown source "${unknown}"; expected user, project and/or local, comma-separated`);
  return sources;
}

/** A session id as Claude Code takes it: a UUID. */
function uuid(value: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value.trim()))
    throw new InvalidArgumentError('expected a UUID such as 123e4567-e89b-12d3-a456-426614174000');
  return value.trim().toLowerCase();
}

/** Claude Code's flags, with the same meanings (docs/claude-code.md has the table). */
export function claudeCodeOptions(): Option[] {
  const hidden = (option: Option) => option.hideHelp();
  return [
    new Option('--dangerously-skip-permissions', "allow every tool call without asking (Claude Code's --yolo)"),
    hidden(new Option('--allow-dangerously-skip-permissions', 'accepted: lets a program switch to bypassPermissions')),
    new Option(
      '--allowedTools <rules...>',
      'permission rules that run without asking: "Bash(git diff:*)" Edit mcp__github',
    ).argParser(ruleList),
    hidden(new Option('--allowed-tools <rules...>').argParser(ruleList)),
    new Option('--disallowedTools <rules...>', 'permission rules that are refused: "Bash(rm:*)" WebFetch').argParser(ruleList),
    hidden(new Option('--disallowed-tools <rules...>').argParser(ruleList)),
    new Option('--system-prompt <text>', "the system prompt to use instead of outrider's"),
    new Option('--append-system-prompt <text>', 'text added to the end of the system prompt'),
    new Option('--settings <file-or-json>', "more settings (outrider's or Claude Code's keys) from a file or JSON text"),
    new Option('--setting-sources <sources>', 'settings files to read: user, project, local (comma-separated)').argParser(
      settingSources,
    ),
    new Option('--session-id <uuid>', 'the id of the new session (a UUID)').argParser(uuid),
    new Option('--fallback-model <model>', 'the model to use when the main one is overloaded'),
    new Option('--strict-mcp-config', 'start only the MCP servers of --mcp-config'),
    new Option('--include-partial-messages', 'stream-json: also write each streamed delta as a stream_event'),
    new Option(
      '--permission-prompt-tool <tool>',
      'who answers permission questions headless: stdio (the Agent SDK) or an MCP tool',
    ),
    // Passed by the Agent SDK for options outrider does not honour: accepted, named in a warning.
    ...[
      '--max-thinking-tokens <n>',
      '--betas <betas...>',
      '--json-schema <schema>',
      '--tools <tools>',
      '--agent <name>',
      '--plugin-dir <dir>',
      '--fork-session',
      '--include-hook-events',
      '--no-session-persistence',
    ].map((flags) => hidden(new Option(flags))),
  ];
}
