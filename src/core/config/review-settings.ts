import { realpathSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../platform/canonical-json.js';
import { type McpServerEntries, readMcpFile } from './mcp-files.js';
import { outriderPaths, projectPaths } from './paths.js';
import { type GuardedSetting, type ResolvedSettings, guardedFingerprint, resolveSettings } from './project-trust.js';
import { SETTINGS_DEFAULTS, type Settings, type SettingsFiles, SettingsError, readSettingsFiles } from './settings.js';
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
  fingerprint: string;
  stored: FolderTrust;
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

/** Reads the settings files and, when the project holds guarded keys, the user's answer for this folder. */
export function reviewSettings(input: { cwd: string; env: NodeJS.ProcessEnv; flags: Settings }): SettingsReview {
  const home = outriderPaths(input.env);
  const projectFile = projectPaths(input.cwd).settings;
  const files = readSettingsFiles({ userPath: home.userSettings, projectPath: projectFile });
  const { guarded } = resolveSettings({ defaults: SETTINGS_DEFAULTS, ...files, flags: input.flags }, { trusted: false });
  const mcpJson = readProjectMcp(projectPaths(input.cwd).mcpJson, files.user);
  const folder = realFolder(input.cwd);
  const fingerprint = guardedFingerprint(
    files.project,
    mcpJson.guarded.length ? { '.mcp.json': guardedEntries(mcpJson) } : undefined,
  );
  // The store is read only when it matters, so a damaged one never blocks a plain start.
  const asks = guarded.length > 0 || mcpJson.guarded.length > 0;
  const stored = asks ? folderTrust(readTrustStore(home.trustedFolders), folder, fingerprint) : 'unasked';
  return {
    folder,
    projectFile,
    trustFile: home.trustedFolders,
    files,
    flags: input.flags,
    guarded,
    mcpJson,
    fingerprint,
    stored,
  };
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
  const asks = review.guarded.length > 0 || review.mcpJson.guarded.length > 0;
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
): ResolvedSettings & { warning?: string; mcpJson: { servers: McpServerEntries; warning?: string } } {
  const trusted = options.trusted === true || review.stored === 'trusted';
  const resolved = resolveSettings({ defaults: SETTINGS_DEFAULTS, ...review.files, flags: review.flags }, { trusted });
  const mcpJson = projectMcpServers(review, trusted);
  if (resolved.ignored.length === 0) return { ...resolved, mcpJson };
  return {
    ...resolved,
    mcpJson,
    warning: `ignored ${resolved.ignored.join(', ')} from ${review.projectFile}: ${whyIgnored(review)}`,
  };
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

function whyIgnored(review: SettingsReview): string {
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
