/** A line the user typed that starts with `/`, parsed. */
export type SlashCommand =
  | { name: 'help' }
  | { name: 'agents' }
  | { name: 'agents-stop'; target: string }
  | { name: 'agents-worktree'; verb: 'merge' | 'discard'; target: string }
  | { name: 'compact' }
  | { name: 'cost' }
  | { name: 'memory' }
  | { name: 'mcp' }
  | { name: 'quit' }
  /** Known command, wrong arguments: `message` says how to call it. */
  | { name: 'usage'; message: string }
  | { name: 'unknown'; command: string };

/** The commands /help lists, in order. */
export const COMMANDS: readonly { usage: string; does: string }[] = [
  { usage: '/help', does: 'keys and commands' },
  { usage: '/agents', does: 'list sub-agents: ↑/↓ move, Enter opens one, x stops it, Esc goes back' },
  { usage: '/agents stop <id|all>', does: 'stop one sub-agent (sub-3 or 3) or all of them' },
  { usage: '/compact', does: 'summarize earlier conversation to free context' },
  { usage: '/cost', does: 'tokens and cost: the parent and each sub-agent' },
  { usage: '/memory', does: 'the instruction files in the prompt (AGENTS.md, CLAUDE.md, imports) and their sizes' },
  { usage: '/mcp', does: 'MCP servers: state, tools, last error' },
  { usage: '/quit, /exit', does: 'stop every sub-agent and quit' },
];

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
      return agentsCommand(args);
    case 'compact':
      return { name: 'compact' };
    case 'cost':
      return { name: 'cost' };
    case 'memory':
      return { name: 'memory' };
    case 'mcp':
      return { name: 'mcp' };
    case 'quit':
    case 'exit':
      return { name: 'quit' };
    default:
      return { name: 'unknown', command: `/${command}` };
  }
}

function agentsCommand(args: string[]): SlashCommand {
  if (args.length === 0) return { name: 'agents' };
  const [verb, target, ...rest] = args;
  if (verb === 'stop' && target && rest.length === 0) return { name: 'agents-stop', target };
  if ((verb === 'merge' || verb === 'discard') && target && rest.length === 0) return { name: 'agents-worktree', verb, target };
  return {
    name: 'usage',
    message: 'usage: /agents, or /agents stop <id|all> (e.g. /agents stop sub-2), /agents merge <id>, /agents discard <id>',
  };
}
