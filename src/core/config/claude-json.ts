/**
 * MCP servers that `claude mcp add` wrote to `~/.claude.json`: the user scope (its top-level
 * `mcpServers`) and the local scope (`projects["<folder>"].mcpServers`, for this folder). The
 * file is the user's own, written by the user's command: its servers start without the folder's
 * trust, like servers in `~/.outrider/settings.json`. (The project scope is `.mcp.json`.)
 */
import path from 'node:path';
import { realpathSync } from 'node:fs';
import { parseJsonc } from './jsonc.js';
import type { McpServerEntries } from './mcp-files.js';
import { mcpServerEntrySchema } from './mcp-servers.js';
import { ConfigFileError, readConfigFile } from './read-config-file.js';
import { describeIssue } from './zod-issues.js';

/** Claude Code keeps its history in this file too: it may be large, but not without bound. */
export const MAX_CLAUDE_JSON_BYTES = 32 * 1024 * 1024;

/** The servers of `~/.claude.json` for `cwd` (user scope, then this folder's local scope), and what could not be used. */
export function claudeJsonServers(home: string | undefined, cwd: string): { servers: McpServerEntries; warnings: string[] } {
  const servers: McpServerEntries = Object.create(null) as McpServerEntries;
  if (!home) return { servers, warnings: [] };
  const file = path.join(home, '.claude.json');
  let text: string | undefined;
  try {
    text = readConfigFile(file, { maxBytes: MAX_CLAUDE_JSON_BYTES, what: "Claude Code's state file" });
  } catch (error) {
    if (error instanceof ConfigFileError) return { servers, warnings: [`${error.message}; its MCP servers are not started`] };
    throw error;
  }
  if (text === undefined) return { servers, warnings: [] };
  const parsed = parseJsonc(text.replace(/^\uFEFF/, ''));
  if (!parsed.ok) {
    return {
      servers,
      warnings: [`${file}: invalid JSON at line ${parsed.line}, column ${parsed.column}; its MCP servers are not started`],
    };
  }
  const root = object(parsed.value);
  const projects = object(root?.projects);
  const local = projects ? object(projects[folderKey(cwd, projects)])?.mcpServers : undefined;
  const warnings: string[] = [];
  for (const [scope, value] of [
    ['mcpServers', root?.mcpServers],
    [`projects[${JSON.stringify(path.resolve(cwd))}].mcpServers`, local],
  ] as const) {
    for (const [name, raw] of Object.entries(object(value) ?? {})) {
      const entry = mcpServerEntrySchema.safeParse(raw);
      if (entry.success) servers[name] = entry.data;
      else warnings.push(`${file}: ${scope}.${name}: ${describeIssue(entry.error.issues[0], raw).text}; not started`);
    }
  }
  return { servers, warnings };
}

/** The key this folder has under `projects`: as given, or its real path. */
function folderKey(cwd: string, projects: Record<string, unknown>): string {
  const given = path.resolve(cwd);
  if (Object.hasOwn(projects, given)) return given;
  try {
    return realpathSync(given);
  } catch {
    return given;
  }
}

function object(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
