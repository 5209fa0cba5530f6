/**
 * Every `/` command a session runs, as the front ends other than the TUI list them (stream-json's
 * `slash_commands`, the Agent SDK's `initialize`, ACP's `available_commands_update`).
 */
import { type ListedCommand, mcpPromptCommands } from '../mcp/prompt-commands.js';
import type { OpenedSession } from './opened-session.js';

/**
 * The custom commands, then the running MCP servers' prompts (`mcp__<server>__<prompt>`). A
 * prompt's command runs before a custom command of the same name, so that custom one is not listed.
 */
export function sessionCommands(opened: Pick<OpenedSession, 'commands' | 'mcp'>): ListedCommand[] {
  const prompts = mcpPromptCommands(opened.mcp.statuses());
  const taken = new Set(prompts.map((prompt) => prompt.name));
  const custom = opened.commands
    .filter((command) => !taken.has(command.name))
    .map((command) => ({
      name: command.name,
      description: command.description,
      argumentHint: command.argumentHint ?? '',
    }));
  return [...custom, ...prompts];
}
