/**
 * What `outrider mcp list` prints: each server's name, what it runs or reaches, how and where
 * it was configured, then its state. Every piece of a server's entry is shown escaped (a
 * repository's `.mcp.json` may hold terminal escapes); of `env` and `headers` only the names
 * (their values are where tokens live), and a URL without its password or query values.
 */
import { type McpServerSpec, type McpServerStatus, type McpServersHere, mcpLoginCommand, safeText } from '../core/index.js';

/** A name in double quotes, as JSON writes it (control characters escaped), invisible characters escaped too. */
export function quoted(name: string): string {
  return safeText(JSON.stringify(name));
}

/** The two lines of one server: what it is, and where it stands. */
export function serverLines(spec: McpServerSpec, state: string): string[] {
  return [`${safeText(spec.name)}: ${describe(spec)}`, `  ${state}`];
}

/** A started server's state after the check: `ready: 3 tools`, `failed: why`, `needs-auth: …`. */
export function stateLine(status: McpServerStatus): string {
  switch (status.state) {
    case 'ready':
      return `ready: ${status.tools.length} tool${status.tools.length === 1 ? '' : 's'}`;
    case 'needs-auth':
      return `needs-auth: sign in with ${mcpLoginCommand(status.name)}`;
    case 'failed':
    case 'starting':
      return `failed: ${safeText(status.error ?? 'it did not start')}`;
    default: {
      const unknown: never = status.state;
      return unknown;
    }
  }
}

/** Why a project's server is not started here, and what to do about it. */
export function notTrustedLine(trust: McpServersHere['trust']): string {
  switch (trust.stored) {
    case 'untrusted':
      return `not started: you chose not to trust this folder (pass --trust, or remove it from ${trust.trustFile} to be asked again)`;
    case 'changed':
      return 'not started: the project changed its servers since you trusted this folder (run outrider here to review them, or pass --trust)';
    default:
      return 'not started: folder not trusted (run outrider here and answer the trust question, or pass --trust)';
  }
}

function describe(spec: McpServerSpec): string {
  const entry = spec.entry;
  if (entry.type === 'stdio') {
    const target = [entry.command, ...(entry.args ?? [])].join(' ');
    return `${safeText(target)} (stdio, ${safeText(spec.source)}${names('env', entry.env)})`;
  }
  return `${safeText(shownUrl(entry.url))} (${entry.type}, ${safeText(spec.source)}${names('headers', entry.headers)})`;
}

function names(label: string, map: Record<string, string> | undefined): string {
  const keys = Object.keys(map ?? {});
  return keys.length ? `; ${label}: ${keys.map(safeText).join(', ')}` : '';
}

/** A `${VAR}` reference is shown as written: it names where a value comes from, not the value. */
const REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/;

/** The URL as written, its password and query values replaced with `***` (tokens travel there too). */
export function shownUrl(url: string): string {
  const withoutPassword = url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/, '$1:***@');
  const query = withoutPassword.indexOf('?');
  if (query < 0) return withoutPassword;
  const hash = withoutPassword.indexOf('#', query);
  const end = hash < 0 ? withoutPassword.length : hash;
  const params = withoutPassword
    .slice(query + 1, end)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      const value = pair.slice(equals + 1);
      return value === '' || REFERENCE.test(value) ? pair : `${pair.slice(0, equals)}=***`;
    });
  return `${withoutPassword.slice(0, query + 1)}${params.join('&')}${withoutPassword.slice(end)}`;
}
