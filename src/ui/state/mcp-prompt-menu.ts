import { type McpServerStatus, oneLine, safeText } from '../../core/index.js';
import type { MenuCommand } from '../slash-commands.js';

/** What the menu takes of one server at most, and of one description. */
const MAX_PER_SERVER = 200;
const MAX_DESCRIPTION = 200;
/** What a prompt's command looks like; anything else from a status is not offered. */
const COMMAND = /^\/mcp__[A-Za-z0-9_-]{1,250}$/;

/**
 * The running servers' prompts as `/` menu choices: `mcp__<server>__<prompt>` with its
 * arguments (`<required> [optional]`) and description. The core hands them over made safe;
 * they are server text all the same, so what does not look like a command is skipped and the
 * rest is kept to one line with its invisible characters shown as escapes.
 */
export function mcpPromptMenu(servers: readonly McpServerStatus[]): MenuCommand[] {
  return servers.flatMap((server) =>
    server.state !== 'ready'
      ? []
      : (server.prompts ?? [])
          .filter((prompt) => COMMAND.test(prompt.command))
          .slice(0, MAX_PER_SERVER)
          .map((prompt) => {
            const hint = prompt.arguments
              .map((arg) => (arg.required ? `<${shown(arg.name, 40)}>` : `[${shown(arg.name, 40)}]`))
              .join(' ');
            const description = prompt.description ? shown(prompt.description, MAX_DESCRIPTION) : '';
            return {
              name: prompt.command.slice(1),
              does: [hint, description].filter(Boolean).join(' · ') || 'MCP prompt',
              takesInput: true,
            };
          }),
  );
}

function shown(text: string, max: number): string {
  return safeText(oneLine(text, max));
}
