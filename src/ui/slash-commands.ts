/** A line the user typed that starts with `/`, parsed. */
export type SlashCommand =
  | { name: 'help' }
  | { name: 'agents' }
  | { name: 'agents-stop'; target: string }
  /** A message to a job, as from the user: running → read at its next step, queued → added to its task, ended → resumed. */
  | { name: 'agents-send'; target: string; text: string }
  | { name: 'agents-worktree'; verb: 'merge' | 'discard'; target: string }
  | { name: 'compact' }
  | { name: 'cost' }
  /** Without an id: list this directory's sessions. */
  | { name: 'resume'; id?: string }
  | { name: 'memory' }
  | { name: 'mcp' }
  /** A remote server's OAuth sign-in in the browser (`login`), or its stored sign-in forgotten (`logout`). */
  | { name: 'mcp-auth'; verb: 'login' | 'logout'; server: string }
  | { name: 'status' }
  /** Without a model: list the models; with one (an id, an alias, `default`, or a number of the list): switch to it. */
  | { name: 'model'; model?: string; effort?: string }
  | { name: 'clear' }
  /** The picker of earlier prompts, to go back to before one. */
  | { name: 'rewind' }
  | { name: 'diff' }
  | { name: 'init' }
  /** Without a number: list the "allow always" answers; with one: forget it. */
  | { name: 'permissions'; remove?: number }
  /** The conversation as Markdown, into `file` (a name in the workspace by default). */
  | { name: 'export'; file?: string }
  | { name: 'quit' }
  /** Known command, wrong arguments: `message` says how to call it. */
  | { name: 'usage'; message: string }
  | { name: 'unknown'; command: string };

/** The commands /help lists, in order. */
export const COMMANDS: readonly { usage: string; does: string }[] = [
  { usage: '/help', does: 'keys and commands' },
  {
    usage: '/agents',
    does: 'list sub-agents and their worktrees: ↑/↓ move, Enter opens one full screen (its whole transcript, what it used of its caps, its changes; its keys are above), Esc goes back',
  },
  { usage: '/agents stop <id|all>', does: 'stop one sub-agent (sub-3 or 3) or all of them' },
  {
    usage: '/agents send <id> <message>',
    does: 'message a sub-agent: a running one reads it at its next step, a queued one gets it added to its task, an ended one resumes',
  },
  {
    usage: '/agents merge <id…|all>',
    does: "apply isolated sub-agents' worktrees to the checkout, in the order given (agents.mergeCheck after each)",
  },
  { usage: '/agents discard <id>', does: "remove an isolated sub-agent's worktree and branch, its changes with them" },
  { usage: '/compact', does: 'summarize earlier conversation to free context' },
  { usage: '/cost', does: 'tokens and cost: the parent and each sub-agent' },
  { usage: '/resume [id]', does: "list this directory's sessions, or switch to one (its conversation is shown again)" },
  { usage: '/memory', does: 'the instruction files in the prompt (AGENTS.md, CLAUDE.md, imports) and their sizes' },
  { usage: '/mcp', does: 'MCP servers: state, tools, last error' },
  { usage: '/mcp login|logout <server>', does: 'sign in to a remote MCP server in your browser (OAuth), or forget its sign-in' },
  { usage: '/diff', does: "the agent's file edits this session, file by file, with their diffs" },
  {
    usage: '/permissions [remove <n>]',
    does: 'the rules in force (settings, flags), each explained, and the "allow always" answers; remove one so it asks again',
  },
  { usage: '/init', does: 'have the agent read the repository and write (or improve) its AGENTS.md' },
  { usage: '/clear', does: 'start a new conversation here (this one stays stored for /resume)' },
  {
    usage: '/rewind',
    does: "go back to before an earlier prompt: its conversation, the files the agent changed since (bash commands' edits are not tracked), or both; also Esc twice on an empty input",
  },
  {
    usage: '/model [name|n] [effort]',
    does: 'list the models with their windows and prices, or switch the next turns to one (sub-agents that inherit follow)',
  },
  { usage: '/status', does: 'model, provider, base URL, mode, sandbox, MCP, session id and folder, version' },
  { usage: '/export [file]', does: 'write the conversation as Markdown (default: outrider-<session>.md here)' },
  { usage: '/quit, /exit', does: 'stop every sub-agent and quit' },
];

/** The commands the `/` menu offers as you type, by name. */
export const MENU_COMMANDS: readonly { name: string; does: string }[] = [
  { name: 'help', does: 'keys and commands' },
  { name: 'agents', does: 'list sub-agents (add "stop <id|all>", "send <id> <message>", "merge <id…|all>", "discard <id>")' },
  { name: 'compact', does: 'summarize earlier conversation to free context' },
  { name: 'cost', does: 'tokens and cost' },
  { name: 'resume', does: 'list sessions, or switch to one' },
  { name: 'clear', does: 'a new conversation' },
  { name: 'rewind', does: 'go back to before an earlier prompt (conversation, files, or both)' },
  { name: 'diff', does: "the agent's edits this session" },
  { name: 'init', does: 'write AGENTS.md for this repository' },
  { name: 'mcp', does: 'MCP servers: state, tools, last error (add "login|logout <server>")' },
  { name: 'permissions', does: 'the "allow always" answers (add "remove <n>")' },
  { name: 'model', does: 'list models, or switch: /model <name|n> [low|medium|high|max]' },
  { name: 'status', does: 'model, provider, mode, session' },
  { name: 'export', does: 'the conversation as Markdown' },
  { name: 'quit', does: 'stop every sub-agent and quit' },
];
/** One choice of the `/` menu; `takesInput`: choosing it with Enter inserts it for the rest to be typed, rather than running it. */
export interface MenuCommand {
  name: string;
  does: string;
  takesInput?: boolean;
}

/**
 * The `/` menu: the built-in commands, then the custom ones with their descriptions, then the
 * MCP servers' prompts (mcp-prompt-menu.ts). A name listed once: the first wins.
 */
export function menuCommands(
  custom: readonly { name: string; description?: string; argumentHint?: string }[] = [],
  prompts: readonly MenuCommand[] = [],
): readonly MenuCommand[] {
  const taken = new Set(MENU_COMMANDS.map((c) => c.name));
  const extra = custom
    .filter((c) => !taken.has(c.name))
    .map((c) => ({ name: c.name, does: [c.argumentHint, c.description].filter(Boolean).join(' · ') || 'custom command' }));
  for (const c of extra) taken.add(c.name);
  const fromServers: MenuCommand[] = [];
  for (const prompt of prompts) {
    if (taken.has(prompt.name)) continue;
    taken.add(prompt.name);
    fromServers.push(prompt);
  }
  return [...MENU_COMMANDS, ...extra, ...fromServers];
}

/** A line naming an MCP server's prompt (`/mcp__<server>__<prompt> args`): sent as a prompt, which the core expands. */
export function callsMcpPrompt(command: SlashCommand): boolean {
  return command.name === 'unknown' && command.command.startsWith('/mcp__');
}

/** A line naming no built-in command but a custom one (a Markdown command file): sent as a prompt, which the core expands. */
export function callsCustomCommand(command: SlashCommand, custom: readonly { name: string }[] = []): boolean {
  return command.name === 'unknown' && custom.some((c) => `/${c.name}` === command.command);
}

/** Parses a slash command; undefined when the line is a prompt. */
export function parseSlashCommand(line: string): SlashCommand | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('/')) return undefined;
  const [command = '', ...args] = trimmed.slice(1).split(/\s+/);
  switch (command.toLowerCase()) {
    case 'help':
    case '?':
      return { name: 'help' };
    case 'agents':
    case 'agent':
      return agentsCommand(args, trimmed);
    case 'compact':
      return { name: 'compact' };
    case 'cost':
      return { name: 'cost' };
    case 'resume':
      if (args.length > 1)
        return { name: 'usage', message: 'usage: /resume, or /resume <id> (an id from the list, or its start)' };
      return args[0] ? { name: 'resume', id: args[0] } : { name: 'resume' };
    case 'memory':
      return { name: 'memory' };
    case 'mcp':
      if (args.length === 0) return { name: 'mcp' };
      if ((args[0] === 'login' || args[0] === 'logout') && args[1] && args.length === 2)
        return { name: 'mcp-auth', verb: args[0], server: args[1] };
      return { name: 'usage', message: 'usage: /mcp, or /mcp login <server>, /mcp logout <server> (a name /mcp lists)' };
    case 'status':
      return { name: 'status' };
    case 'model':
      if (args.length > 2)
        return { name: 'usage', message: 'usage: /model, or /model <name|n> [low|medium|high|max] (e.g. /model opus high)' };
      return { name: 'model', ...(args[0] ? { model: args[0] } : {}), ...(args[1] ? { effort: args[1] } : {}) };
    case 'clear':
      return { name: 'clear' };
    case 'rewind':
      return args.length ? { name: 'usage', message: 'usage: /rewind (then choose the prompt in the list)' } : { name: 'rewind' };
    case 'diff':
      return { name: 'diff' };
    case 'init':
      return { name: 'init' };
    case 'permissions':
    case 'allowed-tools': {
      if (args.length === 0) return { name: 'permissions' };
      const n = Number(args[1]);
      if (args[0] === 'remove' && args.length === 2 && Number.isInteger(n) && n > 0) return { name: 'permissions', remove: n };
      return { name: 'usage', message: 'usage: /permissions, or /permissions remove <n> (n from the list)' };
    }
    case 'export':
      if (args.length > 1) return { name: 'usage', message: 'usage: /export, or /export <file> (a path without spaces)' };
      return args[0] ? { name: 'export', file: args[0] } : { name: 'export' };
    case 'quit':
    case 'exit':
      return { name: 'quit' };
    default:
      return { name: 'unknown', command: `/${command}` };
  }
}

export const SEND_USAGE = 'usage: /agents send <id> <message> (e.g. /agents send sub-2 also check the tests)';

function agentsCommand(args: string[], line: string): SlashCommand {
  if (args.length === 0) return { name: 'agents' };
  const [verb, target, ...rest] = args;
  if (verb === 'stop' && target && rest.length === 0) return { name: 'agents-stop', target };
  // A merge takes several ids, applied in the order typed (the core's merge queue), or all.
  if (verb === 'merge' && target) return { name: 'agents-worktree', verb, target: [target, ...rest].join(' ') };
  if (verb === 'discard' && target && rest.length === 0) return { name: 'agents-worktree', verb, target };
  if (verb === 'send') {
    // The message is the rest of the line as typed: its spaces and line breaks kept.
    const text = /^\/\S+\s+send\s+\S+\s*([\s\S]*)$/.exec(line)?.[1]?.trim() ?? '';
    if (!target) return { name: 'usage', message: SEND_USAGE };
    if (!text)
      return {
        name: 'usage',
        message: `/agents send ${target}: the message is empty; say what the sub-agent should do (${SEND_USAGE})`,
      };
    return { name: 'agents-send', target, text };
  }
  return {
    name: 'usage',
    message:
      'usage: /agents, or /agents stop <id|all> (e.g. /agents stop sub-2), /agents send <id> <message>, /agents merge <id…|all> (e.g. /agents merge sub-1 sub-3), /agents discard <id>',
  };
}

/**
 * What /init asks of the agent (Claude Code's /init is a prompt too): read the repository,
 * then write the instructions file every later session starts with.
 */
export const INIT_PROMPT = [
  '/init: read this repository and write AGENTS.md at its root (if one exists, improve it rather than start over).',
  'Look at the README, the build and package files, the CI configuration, the layout of the source and test folders, and any CLAUDE.md, .cursorrules or similar.',
  'AGENTS.md is for an agent working here later: the commands to build, lint, type-check and test (a single test too), the architecture in a few lines, the conventions the code follows, and what to avoid.',
  'Keep it short and specific to this repository; do not invent commands you did not see.',
].join('\n');
