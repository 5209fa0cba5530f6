/**
 * The files `outrider mcp add|remove` edit, one per scope, each one a session reads:
 * - `local`: `~/.claude.json`'s `projects["<folder>"].mcpServers`, where `claude mcp add`
 *   keeps its local scope: yours, for this folder only, never committed. (Outrider has no
 *   per-folder file of its own that is both read and kept out of the repository.)
 * - `project`: `.mcp.json` at the project's root, shared through the repository.
 * - `user`: `mcpServers` of outrider's own user settings (`~/.outrider/settings.json`).
 * Claude Code's user scope (`~/.claude.json`'s top-level `mcpServers`) is read, never edited:
 * it is `claude mcp remove -s user`'s to change.
 */
import { mkdir, realpath } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { notWritableReason, writeFileAtomic } from '../platform/atomic-write.js';
import { isMissing } from '../platform/fs-errors.js';
import { MAX_CLAUDE_JSON_BYTES } from './claude-json.js';
import { parseJsonc } from './jsonc.js';
import { parseMcpText } from './mcp-files.js';
import { type McpServerEntry, expandServer } from './mcp-servers.js';
import { outriderPaths, projectPaths } from './paths.js';
import { ConfigFileError, readConfigFile } from './read-config-file.js';
import { MAX_SETTINGS_BYTES, SettingsError } from './settings.js';

export const MCP_SCOPES = ['local', 'project', 'user'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

/**
 * What a server may be named when added: what fits in a tool name `mcp__<server>__<tool>`, and
 * no path or escape; `__proto__` is left out, as a key that plain objects do not hold as data.
 */
export const MCP_SERVER_NAME = /^(?!__proto__$)[A-Za-z0-9_-]{1,64}$/;

/** One scope's file, and where in it the servers are. */
export interface McpScopeFile {
  scope: McpScope | 'claude-user';
  file: string;
  /** The keys leading to the servers' object: `["mcpServers"]`, or `["projects", folder, "mcpServers"]`. */
  at: string[];
  maxBytes: number;
  /** A new file is created 0600: it is the user's own and may hold tokens. */
  private: boolean;
}

/** Something in the way of reading or changing a scope's file, said so the user can act on it. */
export class McpScopeError extends Error {
  override name = 'McpScopeError';
}

/** The file of a scope for a folder. `local` needs a home folder (`$HOME`). */
export function mcpScopeFile(scope: McpScope | 'claude-user', where: { cwd: string; env: NodeJS.ProcessEnv }): McpScopeFile {
  if (scope === 'project') {
    return { scope, file: projectPaths(where.cwd).mcpJson, at: ['mcpServers'], maxBytes: MAX_SETTINGS_BYTES, private: false };
  }
  if (scope === 'user') {
    const file = outriderPaths(where.env).userSettings;
    return { scope, file, at: ['mcpServers'], maxBytes: MAX_SETTINGS_BYTES, private: true };
  }
  const home = where.env.HOME;
  if (!home)
    throw new McpScopeError(`the ${scope} scope lives in ~/.claude.json, and HOME is not set; set it, or pick --scope user`);
  const file = path.join(home, '.claude.json');
  if (scope === 'claude-user') return { scope, file, at: ['mcpServers'], maxBytes: MAX_CLAUDE_JSON_BYTES, private: true };
  return {
    scope,
    file,
    at: ['projects', folderKey(where.cwd, file), 'mcpServers'],
    maxBytes: MAX_CLAUDE_JSON_BYTES,
    private: true,
  };
}

/** Where a scope's servers are, for messages: `/home/me/.claude.json (projects["/src/app"].mcpServers)`. */
export function describeScopeFile(target: McpScopeFile): string {
  return `${target.file} (${keyPath(target.at)})`;
}

/** `["projects", "/src/app", "mcpServers"]` → `projects["/src/app"].mcpServers`. */
function keyPath(at: readonly string[]): string {
  return at.map((key, i) => (i === 0 ? key : key === 'mcpServers' ? `.${key}` : `[${JSON.stringify(key)}]`)).join('');
}

/** The servers of a scope as written (unvalidated), by name; empty when the file or the key is missing. */
export function readScopeServers(target: McpScopeFile): Record<string, unknown> {
  const loaded = load(target);
  return loaded ? { ...serversIn(loaded.root, target, false) } : {};
}

/**
 * Adds a server to a scope: refused when the name is taken there. The rest of the file is kept
 * as it was (keys, their order, other servers), indented as it was, and replaced atomically.
 */
export async function addScopeServer(target: McpScopeFile, name: string, entry: Record<string, unknown>): Promise<void> {
  await edit(target, (servers) => {
    if (Object.hasOwn(servers, name)) {
      throw new McpScopeError(
        `an MCP server named "${name}" is already in the ${target.scope} scope (${describeScopeFile(target)}); run outrider mcp remove ${name} --scope ${target.scope} first`,
      );
    }
    Object.defineProperty(servers, name, { value: entry, enumerable: true, writable: true, configurable: true });
  });
}

/** Removes a server from a scope; false when the scope has none of that name (nothing is written). */
export async function removeScopeServer(target: McpScopeFile, name: string): Promise<boolean> {
  let had = false;
  await edit(target, (servers) => {
    had = Object.hasOwn(servers, name);
    if (had) delete servers[name];
    return had;
  });
  return had;
}

/**
 * A server's entry as the reader takes it, or an McpScopeError with the reader's own words
 * (`<file>: mcpServers.<name>.url: …`). A URL without variables is checked as the start
 * would check it, so a server that could never start is refused now.
 */
export function checkedMcpEntry(name: string, raw: unknown, target: McpScopeFile): McpServerEntry {
  const source = target.file;
  // The reader's words name the key from `mcpServers`; in ~/.claude.json the servers sit deeper.
  const at = (message: string) => message.replace(`${source}: mcpServers.`, `${source}: ${keyPath(target.at)}.`);
  let entry: McpServerEntry;
  try {
    entry = parseMcpText(JSON.stringify({ mcpServers: { [name]: raw } }), source)[name]!;
  } catch (error) {
    if (error instanceof SettingsError) throw new McpScopeError(at(error.message));
    throw error;
  }
  if (entry.type !== 'stdio' && !entry.url.includes('${')) {
    const expanded = expandServer(entry, {});
    if (!expanded.ok) throw new McpScopeError(at(`${source}: mcpServers.${name}: ${expanded.error}`));
  }
  return entry;
}

interface Loaded {
  root: Record<string, unknown>;
  indent: string;
}

/** Reads, changes and writes back a scope's file; `change` returning false leaves the file untouched. */
async function edit(target: McpScopeFile, change: (servers: Record<string, unknown>) => boolean | void): Promise<void> {
  const loaded = load(target) ?? { root: {}, indent: '  ' };
  if (change(serversIn(loaded.root, target, true)) === false) return;
  const file = await realpath(target.file).catch((error: unknown) => {
    if (isMissing(error)) return target.file;
    throw error;
  });
  const blocked = await notWritableReason(file, file);
  if (blocked) throw new McpScopeError(blocked);
  await mkdir(path.dirname(file), { recursive: true, ...(target.private ? { mode: 0o700 } : {}) });
  await writeFileAtomic(file, `${JSON.stringify(loaded.root, null, loaded.indent)}\n`, target.private ? privateIfNew(file) : {});
}

/** The mode for a file about to be written: 0600 when it is new, its own otherwise (writeFileAtomic keeps it). */
function privateIfNew(file: string): { mode?: number } {
  try {
    realpathSync(file);
    return {};
  } catch {
    return { mode: 0o600 };
  }
}

function load(target: McpScopeFile): Loaded | undefined {
  let text: string | undefined;
  try {
    text = readConfigFile(target.file, { maxBytes: target.maxBytes, what: 'file' });
  } catch (error) {
    if (error instanceof ConfigFileError) throw new McpScopeError(error.message);
    throw error;
  }
  if (text === undefined) return undefined;
  const body = text.replace(/^\uFEFF/, '');
  let root: unknown;
  try {
    root = body.trim() === '' ? {} : JSON.parse(body);
  } catch {
    const jsonc = parseJsonc(body);
    throw new McpScopeError(
      jsonc.ok
        ? `${target.file} has comments or trailing commas, which writing it back would drop; add the server there by hand`
        : `${target.file}: invalid JSON at line ${jsonc.line}, column ${jsonc.column}: ${jsonc.reason}; fix it first`,
    );
  }
  if (!isObject(root)) throw new McpScopeError(`${target.file} is not a JSON object; fix it first`);
  return { root, indent: /^([ \t]+)\S/m.exec(body)?.[1] ?? '  ' };
}

/** The servers' object of a loaded file, created along the way when `create`. */
function serversIn(root: Record<string, unknown>, target: McpScopeFile, create: boolean): Record<string, unknown> {
  let node = root;
  for (const [i, key] of target.at.entries()) {
    if (!Object.hasOwn(node, key) || node[key] === undefined) {
      if (!create) return {};
      Object.defineProperty(node, key, { value: {}, enumerable: true, writable: true, configurable: true });
    }
    const next = node[key];
    if (!isObject(next)) {
      throw new McpScopeError(
        `${describeScopeFile({ ...target, at: target.at.slice(0, i + 1) })} is not a JSON object; fix it first`,
      );
    }
    node = next;
  }
  return node;
}

/**
 * The key of this folder under `projects`, as the reader finds it (claude-json.ts): the
 * folder as given when the file has it, else its real path.
 */
function folderKey(cwd: string, file: string): string {
  const given = path.resolve(cwd);
  let real = given;
  try {
    real = realpathSync(given);
  } catch {
    // a folder that is gone is keyed as given
  }
  if (real === given) return given;
  try {
    const text = readConfigFile(file, { maxBytes: MAX_CLAUDE_JSON_BYTES, what: 'file' });
    const projects = text ? (JSON.parse(text) as { projects?: unknown }).projects : undefined;
    if (isObject(projects) && Object.hasOwn(projects, given)) return given;
  } catch {
    // unreadable: load() says why when it is read for the edit
  }
  return real;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
