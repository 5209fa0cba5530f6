import type { AgentDefinition } from './agent-definition.js';
import { parseDefinition } from './definitions.js';
import { yamlModule } from './yaml-module.js';

/** `--agents` that cannot be used; the message is one line for the user. */
export class AgentsFlagError extends Error {
  override name = 'AgentsFlagError';
}

/**
 * Agents for one run from `--agents '<json>'`, in Claude Code's format:
 * `{"reviewer": {"description": "…", "prompt": "…", "tools": ["Read", "Grep"], "model": "sonnet"}}`.
 * Each entry becomes the agent file it stands for and is read by the same parser as
 * `.claude/agents` files, so the fields, tool names and checks are the same.
 */
export function definitionsFromFlag(json: string): { definitions: AgentDefinition[]; warnings: string[] } {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (error) {
    throw new AgentsFlagError(
      `--agents: not valid JSON (${(error as Error).message}); pass an object such as '{"reviewer": {"description": "…", "prompt": "…"}}'`,
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new AgentsFlagError(
      '--agents: expected an object of agents by name, such as \'{"reviewer": {"description": "…", "prompt": "…"}}\'',
    );
  }
  const definitions: AgentDefinition[] = [];
  const warnings: string[] = [];
  for (const [name, value] of Object.entries(data)) {
    const where = `--agents ${name}`;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      warnings.push(`${where}: expected an object with "description" and "prompt"`);
      continue;
    }
    const { prompt, ...fields } = value as Record<string, unknown>;
    if (typeof prompt !== 'string' || prompt.trim() === '') {
      warnings.push(`${where}: missing "prompt", the agent's system prompt`);
      continue;
    }
    const text = `---\n${yamlModule().stringify({ name, ...fields })}---\n${prompt}\n`;
    const parsed = parseDefinition(text, { path: where, source: 'claude' });
    warnings.push(...parsed.warnings);
    if (parsed.definition) definitions.push({ ...parsed.definition, path: undefined });
  }
  return { definitions, warnings };
}
