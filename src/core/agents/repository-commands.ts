import path from 'node:path';
import { projectPaths } from '../config/paths.js';
import type { AgentFileCommands } from '../config/review-settings.js';
import { canonicalJson } from '../platform/canonical-json.js';
import type { AgentDefinition, FileSource } from './agent-definition.js';
import { readDefinitionFolder } from './definition-files.js';
import { parseDefinition } from './definitions.js';

// An agent file that defines MCP servers or hooks runs programs when its jobs start, and one
// with `memory: user` has them write in the user's home (read by that agent in every project).
// From the repository (`.outrider/agents`, `.claude/agents` in the project) those are the
// repository's doing, so they follow `.mcp.json`'s rule: they are part of what "Trust this
// folder?" shows and fingerprints (config/review-settings.ts), and apply only in a folder
// trusted for exactly these values.

/** The commands of a definition; undefined when it has none (a server named by name runs nothing new). */
export function agentFileCommands(
  definition: Pick<AgentDefinition, 'mcpServers' | 'hooks' | 'memory'>,
): AgentFileCommands | undefined {
  const servers = (definition.mcpServers ?? []).flatMap((server) =>
    'entry' in server ? [[server.name, server.entry] as const] : [],
  );
  const userMemory = definition.memory === 'user';
  if (servers.length === 0 && !definition.hooks && !userMemory) return undefined;
  return {
    ...(servers.length ? { mcpServers: Object.fromEntries(servers) } : {}),
    ...(definition.hooks ? { hooks: definition.hooks } : {}),
    ...(userMemory ? { userMemory: true as const } : {}),
  };
}

/** The project's agent files with commands, by path relative to the project (`/`-separated). */
export function repositoryAgentCommands(cwd: string): Record<string, AgentFileCommands> {
  const project = projectPaths(cwd);
  const found: Record<string, AgentFileCommands> = {};
  const folders: Array<[string, FileSource]> = [
    [project.claudeAgentsDir, 'claude'],
    [project.agentsDir, 'project'],
  ];
  for (const [dir, source] of folders) {
    for (const file of readDefinitionFolder(dir, { within: cwd }).files) {
      // Most files define neither: only those that could are parsed.
      if (!/^(mcpServers|hooks|memory)[ \t]*:/m.test(file.text)) continue;
      const { definition } = parseDefinition(file.text, { path: file.path, source });
      const commands = definition && agentFileCommands(definition);
      if (commands) found[relativeKey(cwd, file.path)] = commands;
    }
  }
  return found;
}

/**
 * Whether the trust answer covers this definition's commands: the folder is trusted and the
 * file holds, byte for byte in meaning, what was reviewed (a file changed since is not covered).
 */
export function commandsReviewed(
  definition: Pick<AgentDefinition, 'mcpServers' | 'hooks' | 'memory' | 'path'>,
  review: { cwd: string; reviewed: Readonly<Record<string, AgentFileCommands>> | undefined },
): boolean {
  if (!definition.path) return false;
  const reviewed = review.reviewed?.[relativeKey(review.cwd, definition.path)];
  return reviewed !== undefined && canonicalJson(reviewed) === canonicalJson(agentFileCommands(definition));
}

function relativeKey(cwd: string, file: string): string {
  return path.relative(path.resolve(cwd), path.resolve(file)).split(path.sep).join('/');
}
