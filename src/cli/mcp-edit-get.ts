/**
 * `outrider mcp get <name>`: each scope's entry of that name, with its file, its transport and
 * what it runs or reaches. Values of `env` and `headers` are masked (tokens live there), and
 * every piece is escaped, as `outrider mcp list` shows them.
 */
import {
  MCP_SCOPES,
  type McpScope,
  McpScopeError,
  type McpScopeFile,
  checkedMcpEntry,
  describeScopeFile,
  mcpScopeFile,
  readScopeServers,
  safeText,
} from '../core/index.js';
import { EXIT } from '../start/options.js';
import type { StderrLines } from '../start/stderr-lines.js';
import { shownUrl } from './mcp-list.js';

interface GetIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  lines: StderrLines;
}

const SCOPE_LINES: Record<McpScope | 'claude-user', string> = {
  local: 'local (yours, in this folder only)',
  project: 'project (.mcp.json, shared through the repository; it starts in a folder you trust)',
  user: 'user (yours, in every folder)',
  'claude-user': "Claude Code's user scope (read here too; claude mcp remove -s user changes it)",
};

/** A name as messages show it: quoted, escaped, and cut short when it is long. */
export function shownName(name: string): string {
  const cut = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  const quotedName = safeText(JSON.stringify(cut));
  return name.length > 64 ? `${quotedName} (${name.length} characters)` : quotedName;
}

/** The scopes (of `among`) whose file has a server of this name. A file that cannot be read throws. */
export function scopesHolding<S extends McpScope | 'claude-user'>(
  name: string,
  where: { cwd: string; env: NodeJS.ProcessEnv },
  among: readonly S[],
): S[] {
  return among.filter((scope) => {
    if (!where.env.HOME && (scope === 'local' || scope === 'claude-user')) return false;
    return Object.hasOwn(readScopeServers(mcpScopeFile(scope, where)), name);
  });
}

export function getServer(name: string, io: GetIo): number {
  const found: string[] = [];
  const scopes: Array<McpScope | 'claude-user'> = [...MCP_SCOPES, 'claude-user'];
  for (const scope of scopes) {
    if (!io.env.HOME && (scope === 'local' || scope === 'claude-user')) continue;
    const target = mcpScopeFile(scope, io);
    let servers: Record<string, unknown>;
    try {
      servers = readScopeServers(target);
    } catch (error) {
      if (!(error instanceof McpScopeError)) throw error;
      io.stderr.write(io.lines.warn(`${safeText(error.message)}; its servers are not shown`));
      continue;
    }
    if (Object.hasOwn(servers, name)) found.push(serverBlock(name, servers[name], target));
  }
  if (found.length === 0) {
    io.stderr.write(
      io.lines.error(
        `no MCP server named ${shownName(name)} in the local, project or user scope (outrider mcp list shows every source a session reads)`,
      ),
    );
    return EXIT.failed;
  }
  io.stdout.write(`${found.join('\n\n')}\n`);
  return EXIT.ok;
}

function serverBlock(name: string, raw: unknown, target: McpScopeFile): string {
  const lines = [`${safeText(name)}:`, `  scope: ${SCOPE_LINES[target.scope]}`, `  file: ${safeText(describeScopeFile(target))}`];
  let entry: ReturnType<typeof checkedMcpEntry>;
  try {
    entry = checkedMcpEntry(name, raw, target);
  } catch (error) {
    lines.push(`  invalid: ${safeText(error instanceof Error ? error.message : String(error))}`);
    return lines.join('\n');
  }
  if (entry.type === 'stdio') {
    lines.push('  transport: stdio', `  command: ${safeText([entry.command, ...(entry.args ?? [])].join(' '))}`);
    lines.push(...masked('env', entry.env));
  } else {
    lines.push(`  transport: ${entry.type}`, `  url: ${safeText(shownUrl(entry.url))}`);
    lines.push(...masked('headers', entry.headers));
  }
  if (entry.disabled === true) lines.push('  disabled: not started');
  return lines.join('\n');
}

function masked(label: string, map: Record<string, string> | undefined): string[] {
  const keys = Object.keys(map ?? {});
  return keys.length ? [`  ${label}: ${keys.map((key) => `${safeText(key)}=***`).join(', ')}`] : [];
}
