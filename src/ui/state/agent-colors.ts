import type { AgentColor } from '../../core/index.js';

/**
 * An agent file's `color:` as the terminal draws it: Claude Code's names, the three a terminal
 * has no name for as 256-colour values (chalk brings them down to what the terminal shows).
 */
const INK_COLORS: Readonly<Record<AgentColor, string>> = Object.freeze({
  red: 'red',
  blue: 'blue',
  green: 'green',
  yellow: 'yellow',
  purple: 'magenta',
  orange: '#ff8700',
  pink: '#ff5fd7',
  cyan: 'cyan',
});

/** The colour a job of agent `definition` is drawn in, when its file gives one. */
export function agentInkColor(colors: ReadonlyMap<string, AgentColor> | undefined, definition: string): string | undefined {
  const color = colors?.get(definition);
  return color ? INK_COLORS[color] : undefined;
}
