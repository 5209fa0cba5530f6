import { realpathSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../platform/canonical-json.js';
import {
  type ClaudeSettingsFile,
  SETTING_SOURCES,
  type SettingSource,
  claudeSettingsPaths,
  parseClaudeSettings,
  readClaudeSettings,
} from './claude-settings.js';
import { parseJsonc } from './jsonc.js';
import type { HookSettings } from '../hooks/hook-settings.js';
import { type McpServerEntries, readMcpFile } from './mcp-files.js';
import { outriderPaths, projectPaths } from './paths.js';
import { ConfigFileError, readConfigFile } from './read-config-file.js';
import { type GuardedSetting, type ResolvedSettings, guardedFingerprint, resolveSettings } from './project-trust.js';
import {
  MAX_SETTINGS_BYTES,
  SETTINGS_DEFAULTS,
  type Settings,
  type SettingsFiles,
  SettingsError,
  mergeSettings,
  readSettingsFiles,
  settingsSchema,
} from './settings.js';
import { type FolderTrust, folderTrust, readTrustStore, recordFolderAnswer } from './trusted-folders.js';

/**
 * The settings files as read once at start, and what the user said before about this folder.
 * A front end asks "Trust this folder?" from it, and the session is opened with these very
 * layers, so what the user saw is what applies.
 */
export interface SettingsReview {
  /** The folder as trust records name it: the working directory's real path. */
  folder: string;
  projectFile: string;
  trustFile: string;
  files: SettingsFiles;
  flags: Settings;
  /** The project's keys that need trust with these flags (empty: nothing to ask). */
  guarded: GuardedSetting[];
  /** The project's `.mcp.json`: each of its servers starts a program or reaches a server, so it needs trust too. */
  mcpJson: ProjectMcpServers;
  /** The project's agent files that define MCP servers or hooks for their jobs, by path: they need trust too. */
  agentCommands?: Readonly<Record<string, AgentFileCommands>>;
  fingerprint: string;
  stored: FolderTrust;
  /** What the Claude Code settings files (and `--settings`) held that outrider leaves out, one line each. */
  notes?: string[];
  /** Every project file read (outrider's and Claude Code's), for the line naming what was left out. */
  projectFiles?: string[];
}

/** The servers of the project's `.mcp.json`, as read at start. */
export interface ProjectMcpServers {
  file: string;
  servers: McpServerEntries;
  /** The names that need trust: every server but those your own settings hold with the same entry. */
  guarded: string[];
  /** Why the file cannot be used (one line naming it); its servers are then not started. */
  error?: string;
}

/** What a run reads settings from, beyond the working directory and environment. */
export interface ReviewInput {
  cwd: string;
  env: NodeJS.ProcessEnv;
  flags: Settings;
  /** `--setting-sources`: which of the user's, the project's and the local files are read (default: all). */
  sources?: readonly SettingSource[];
  /** `--settings`: a file or JSON text of settings (outrider's or Claude Code's keys), the user's word. */
  settingsArg?: string;
  /** The project's agent files with MCP servers or hooks (agents/repository-commands.ts), by path. */
  agentCommands?: Readonly<Record<string, AgentFileCommands>>;
}

/** What of one agent file reaches past its project when its jobs start: the MCP servers it defines, its hooks, a memory in your home. */
export interface AgentFileCommands {
  mcpServers?: McpServerEntries;
  hooks?: HookSettings;
  /** `memory: user`: its jobs write a folder in your home that every project's agent of that name reads. */
  userMemory?: true;
}

/**
 * Reads the settings files and, when the project holds guarded keys, the user's answer for
 * this folder. Claude Code's files join the layers as they would for Claude Code: its user
 * file under outrider's, its project files (`settings.json`, then `settings.local.json`) under
 * outrider's project file, so the project's keys meet the same trust rules whichever file
 * holds them. `--settings` joins the flags.
 */
export function reviewSettings(input: ReviewInput): SettingsReview {
  const home = outriderPaths(input.env);
  const sources = new Set(input.sources ?? SETTING_SOURCES);
  const outriderProject = projectPaths(input.cwd).settings;
  // outrider's own user file holds the provider's setup: it is read whatever the sources.
  const own = readSettingsFiles({
    userPath: home.userSettings,
    projectPath: sources.has('project') ? outriderProject : undefined,
  });
  const claudePaths = claudeSettingsPaths(input.cwd, input.env.HOME || undefined);
  const claude = (source: SettingSource): ClaudeSettingsFile | undefined => {
    const file = claudePaths[source];
    return file && sources.has(source) ? readClaudeSettings(file) : undefined;
  };
  const claudeUser = claude('user');
  const claudeProject = [claude('project'), claude('local')].filter((f): f is ClaudeSettingsFile => f !== undefined);
  const fromFlag = input.settingsArg !== undefined ? readSettingsArg(input.settingsArg, input.cwd) : undefined;
  const notes = [claudeUser, ...claudeProject, fromFlag].flatMap((f) => f?.warnings ?? []);
  const files: SettingsFiles = {
    user: mergeSettings(claudeUser?.settings, own.user),
    project: mergeSettings(...claudeProject.map((f) => f.settings), own.project),
    sources: [
      ...(claudeUser ? [claudeUser.file] : []),
      ...own.sources.filter((f) => f !== outriderProject),
      ...claudeProject.map((f) => f.file),
      ...own.sources.filter((f) => f === outriderProject),
    ],
  };
  const flags = fromFlag ? mergeSettings(fromFlag.settings, input.flags) : input.flags;
  // The file a trust prompt names: outrider's own when it holds settings, else the Claude file that does.
  const claudeFiles = claudeProject.filter((f) => Object.keys(f.settings).length).map((f) => f.file);
  const projectFile = own.sources.includes(outriderProject) || claudeFiles.length === 0 ? outriderProject : claudeFiles[0];
  const projectFiles = [...claudeFiles, ...own.sources.filter((f) => f === outriderProject)];
  const { guarded } = resolveSettings({ defaults: SETTINGS_DEFAULTS, ...files, flags }, { trusted: false });
  const mcpJson = readProjectMcp(projectPaths(input.cwd).mcpJson, files.user);
  const folder = realFolder(input.cwd);
  const agentCommands = input.agentCommands ?? {};
  const fingerprint = guardedFingerprint(files.project, {
    ...(mcpJson.guarded.length ? { '.mcp.json': guardedEntries(mcpJson) } : {}),
    ...(Object.keys(agentCommands).length ? { 'agent files': agentCommands } : {}),
  });
  // The store is read only when it matters, so a damaged one never blocks a plain start.
  const asks = guarded.length > 0 || mcpJson.guarded.length > 0 || Object.keys(agentCommands).length > 0;
  const stored = asks ? folderTrust(readTrustStore(home.trustedFolders), folder, fingerprint) : 'unasked';
  return {
    folder,
    projectFile,
    trustFile: home.trustedFolders,
    files,
    flags,
    guarded,
    mcpJson,
    ...(Object.keys(agentCommands).length ? { agentCommands } : {}),
    fingerprint,
    stored,
    notes,
    projectFiles,
  };
}

/**
 * `--settings`: a file, or JSON text starting with `{`, of outrider's settings or Claude Code's.
 * A missing file or broken JSON stops the start; text that is outrider's settings whole is
 * read as such; otherwise Claude Code's keys are taken and the others named.
 */
function readSettingsArg(value: string, cwd: string): ClaudeSettingsFile {
  const inline = value.trimStart().startsWith('{');
  const file = inline ? '--settings' : path.resolve(cwd, value);
  let text: string | undefined = value;
  if (!inline) {
    try {
      text = readConfigFile(file, { maxBytes: MAX_SETTINGS_BYTES, what: 'settings file' });
    } catch (error) {
      if (error instanceof ConfigFileError) throw new SettingsError(error.message, file);
      throw error;
    }
    if (text === undefined)
      throw new SettingsError(`--settings ${value}: no such file; give a settings file or the JSON itself`, value);
  }
  const parsed = parseJsonc(text.replace(/^\uFEFF/, ''));
  if (!parsed.ok)
    throw new SettingsError(`${file}: invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`, file);
  const own = settingsSchema.safeParse(parsed.value ?? {});
  if (own.success) return { file, settings: own.data, warnings: [] };
  return parseClaudeSettings(text, file);
}

/**
 * `.mcp.json` is another tool's file too: one that cannot be read is reported and its servers
 * left out, and the session still starts.
 */
function readProjectMcp(file: string, user: Settings): ProjectMcpServers {
  let servers: McpServerEntries | undefined;
  try {
    servers = readMcpFile(file);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    return { file, servers: {}, guarded: [], error: `${error.message}; its MCP servers are not started` };
  }
  const entries = servers ?? {};
  const yours = user.mcpServers ?? {};
  const guarded = Object.keys(entries).filter(
    (name) => !Object.hasOwn(yours, name) || canonicalJson(yours[name]) !== canonicalJson(entries[name]),
  );
  return { file, servers: entries, guarded };
}

function guardedEntries(mcp: ProjectMcpServers): McpServerEntries {
  return Object.fromEntries(mcp.guarded.map((name) => [name, mcp.servers[name]!]));
}

/** True when the project holds guarded keys the user has not answered about (or that changed since). */
export function needsTrustAnswer(review: SettingsReview): boolean {
  const asks =
    review.guarded.length > 0 || review.mcpJson.guarded.length > 0 || Object.keys(review.agentCommands ?? {}).length > 0;
  return asks && (review.stored === 'unasked' || review.stored === 'changed');
}

/** Stores the user's answer for this folder and these values; returns the review as it now stands. */
export function recordTrustAnswer(review: SettingsReview, answer: 'trusted' | 'untrusted', now = new Date()): SettingsReview {
  recordFolderAnswer(review.trustFile, review.folder, { trust: answer, settings: review.fingerprint, at: now.toISOString() });
  return { ...review, stored: answer };
}

/**
 * The effective settings: the project's guarded keys apply when `trusted` (a `--trust` flag)
 * or when the user trusted this folder for these values. `warning` is one line naming what
 * was left out, and how to use it.
 */
export function settingsFromReview(
  review: SettingsReview,
  options: { trusted?: boolean } = {},
): ResolvedSettings & { warning?: string; notes: string[]; mcpJson: { servers: McpServerEntries; warning?: string } } {
  const trusted = options.trusted === true || review.stored === 'trusted';
  const resolved = resolveSettings({ defaults: SETTINGS_DEFAULTS, ...review.files, flags: review.flags }, { trusted });
  const mcpJson = projectMcpServers(review, trusted);
  const notes = review.notes ?? [];
  if (resolved.ignored.length === 0) return { ...resolved, notes, mcpJson };
  const from = review.projectFiles?.length ? review.projectFiles.join(', ') : review.projectFile;
  // Deny and ask rules apply untrusted: say so, so "ignored permissions" is not read as "no rules".
  const { ask, deny } = review.files.project.permissions ?? {};
  const narrowing = (ask?.length ?? 0) + (deny?.length ?? 0) > 0;
  const keys = resolved.ignored.map((key) =>
    key === 'permissions' && narrowing ? 'permissions (its deny and ask rules still apply)' : key,
  );
  return { ...resolved, notes, mcpJson, warning: `ignored ${keys.join(', ')} from ${from}: ${whyIgnored(review)}` };
}

/** The `.mcp.json` servers that start: all of them in a trusted folder, else only those that are yours already. */
function projectMcpServers(review: SettingsReview, trusted: boolean): { servers: McpServerEntries; warning?: string } {
  const { file, servers, guarded, error } = review.mcpJson;
  if (error) return { servers: {}, warning: error };
  if (trusted || guarded.length === 0) return { servers };
  const kept = Object.fromEntries(Object.entries(servers).filter(([name]) => !guarded.includes(name)));
  const names = guarded.map((name) => JSON.stringify(name)).join(', ');
  const noun = guarded.length === 1 ? 'server' : 'servers';
  return { servers: kept, warning: `did not start MCP ${noun} ${names} from ${file}: ${whyIgnored(review)}` };
}

/** Why what needs trust was left out, and what the user can do: one clause. */
export function whyIgnored(review: Pick<SettingsReview, 'stored' | 'trustFile'>): string {
  switch (review.stored) {
    case 'untrusted':
      return `you chose not to trust this folder; pass --trust to use them for one run, or remove the folder from ${review.trustFile} to be asked again`;
    case 'changed':
      return 'they changed since you trusted this folder; start outrider here (without -p) to review them, or pass --trust';
    default:
      return 'this folder is not trusted; pass --trust to use them, or start outrider here (without -p) to be asked';
  }
}

function realFolder(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return path.resolve(cwd);
  }
}
