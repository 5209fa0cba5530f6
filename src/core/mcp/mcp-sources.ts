import { claudeJsonServers } from '../config/claude-json.js';
import type { SettingSource } from '../config/claude-settings.js';
import { type McpServerEntries, readMcpConfigArgs } from '../config/mcp-files.js';
import type { McpServerSpec } from '../config/mcp-servers.js';
import type { HostedMcpServer, SessionServerSpec } from './hosted-server.js';

/**
 * The servers of every source, later winning for a name: your settings (and a trusted
 * project's), the project's `.mcp.json` (when trusted), `--mcp-config`. Disabled entries are left out.
 */
export function mcpServerSpecs(sources: Array<{ source: string; servers: McpServerEntries | undefined }>): McpServerSpec[] {
  const byName = new Map<string, McpServerSpec>();
  for (const { source, servers } of sources) {
    for (const [name, entry] of Object.entries(servers ?? {})) {
      byName.delete(name);
      if (entry.disabled !== true) byName.set(name, { name, source, entry });
    }
  }
  return [...byName.values()];
}

/** What decides a session's MCP servers, besides the folder: the effective settings, trust already applied. */
export interface McpSourcesInput {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `mcpServers` of the effective settings (a project's only when trusted). */
  settingsServers: McpServerEntries | undefined;
  /** The project's `.mcp.json` servers that may start (all of them only in a trusted folder). */
  mcpJsonServers: McpServerEntries | undefined;
  /** `--mcp-config` values. */
  mcpConfig?: readonly string[];
  /** `--strict-mcp-config`: only the `--mcp-config` servers. */
  strictMcpConfig?: boolean;
  /** `--setting-sources`: without `user`, `~/.claude.json` is not read either. */
  settingSources?: readonly SettingSource[];
  /** The servers the program driving the session hosts (the Agent SDK's `sdkMcpServers`): they win a name. */
  sdkMcpServers?: readonly HostedMcpServer[];
}

/**
 * The servers a session started here runs, in the order of their sources: `~/.claude.json`
 * (user, then this folder's local scope), settings, `.mcp.json`, `--mcp-config`. `warnings`:
 * the `~/.claude.json` entries that cannot be used. A bad `--mcp-config` throws a SettingsError.
 * The hosted servers come last, in place of a configured server of their name (only the host names one `sdk`).
 */
export function sessionMcpSpecs(input: McpSourcesInput & { sdkMcpServers?: undefined }): {
  specs: McpServerSpec[];
  warnings: string[];
};
export function sessionMcpSpecs(input: McpSourcesInput): { specs: SessionServerSpec[]; warnings: string[] };
export function sessionMcpSpecs(input: McpSourcesInput): { specs: SessionServerSpec[]; warnings: string[] } {
  const strict = input.strictMcpConfig === true;
  // `claude mcp add`'s servers: the user's own file, read unless --setting-sources leaves the user out.
  const claudeJson =
    strict || (input.settingSources && !input.settingSources.includes('user'))
      ? { servers: undefined, warnings: [] }
      : claudeJsonServers(input.env.HOME || undefined, input.cwd);
  const specs = mcpServerSpecs([
    { source: '~/.claude.json', servers: claudeJson.servers },
    { source: 'settings', servers: strict ? undefined : input.settingsServers },
    { source: '.mcp.json', servers: strict ? undefined : input.mcpJsonServers },
    { source: '--mcp-config', servers: input.mcpConfig?.length ? readMcpConfigArgs(input.mcpConfig, input.cwd) : undefined },
  ]);
  const hosted = input.sdkMcpServers ?? [];
  const names = new Set(hosted.map((server) => server.name));
  return {
    specs: [
      ...specs.filter((spec) => !names.has(spec.name)),
      ...hosted.map((server) => ({ name: server.name, source: 'sdk', connect: server.connect })),
    ],
    warnings: claudeJson.warnings,
  };
}
