import path from 'node:path';
import { parseJsonc } from './jsonc.js';
import { type McpServerEntry, mcpFileSchema } from './mcp-servers.js';
import { ConfigFileError, readConfigFile } from './read-config-file.js';
import { MAX_SETTINGS_BYTES, SettingsError } from './settings.js';
import { describeIssue } from './zod-issues.js';

/** The servers of an MCP file, by name, as written. */
export type McpServerEntries = Record<string, McpServerEntry>;

/**
 * Reads a file of `{ "mcpServers": … }` (`.mcp.json`, a `--mcp-config` file); undefined when
 * it does not exist. Anything wrong throws a `SettingsError` naming the file (and the key).
 */
export function readMcpFile(file: string): McpServerEntries | undefined {
  let text: string | undefined;
  try {
    text = readConfigFile(file, { maxBytes: MAX_SETTINGS_BYTES, what: 'MCP servers file' });
  } catch (error) {
    if (error instanceof ConfigFileError) throw new SettingsError(error.message, file);
    throw error;
  }
  return text === undefined ? undefined : parseMcpText(text, file);
}

/** Parses `{ "mcpServers": … }` text (comments and trailing commas allowed); `source` names it in errors. */
export function parseMcpText(text: string, source: string): McpServerEntries {
  const parsed = parseJsonc(text.replace(/^\uFEFF/, ''));
  if (!parsed.ok) {
    throw new SettingsError(`${source}: invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`, source);
  }
  const result = mcpFileSchema.safeParse(parsed.value ?? {});
  if (!result.success) throw new SettingsError(`${source}: ${describeIssue(result.error.issues[0], parsed.value).text}`, source);
  // Rebuilt entry by entry, so a server named "__proto__" is a server, not a prototype.
  const servers: McpServerEntries = Object.create(null) as McpServerEntries;
  for (const [name, entry] of Object.entries(result.data.mcpServers)) servers[name] = entry;
  return servers;
}

/**
 * `--mcp-config` values, in order: each a file (relative to `cwd`) or JSON text starting
 * with `{`. Later values win for a name. A missing file or a bad one stops the start.
 */
export function readMcpConfigArgs(values: readonly string[], cwd: string): McpServerEntries {
  const servers: McpServerEntries = Object.create(null) as McpServerEntries;
  for (const value of values) {
    const entries = value.trimStart().startsWith('{')
      ? parseMcpText(value, '--mcp-config')
      : readMcpFile(path.resolve(cwd, value));
    if (entries === undefined) {
      throw new SettingsError(
        `--mcp-config ${value}: no such file; give a file of { "mcpServers": … } or the JSON itself`,
        value,
      );
    }
    Object.assign(servers, entries);
  }
  return servers;
}
