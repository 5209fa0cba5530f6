import * as z from 'zod';

// MCP servers as Claude Code (and Claude Desktop, Cursor) write them: `{ "mcpServers": { name: entry } }`
// in `.mcp.json`, in settings files and in `--mcp-config` files. Keys other tools add to an
// entry (`autoApprove`, `timeout`, …) are ignored, so an existing file works unchanged.

const text = (what: string) => z.string({ error: what });
const stringMap = (what: string) => z.record(z.string(), text(`${what} (a string)`), { error: `an object of names to ${what}s` });

const stdioEntry = z.object({
  type: z.literal('stdio'),
  command: text('a program to run (a string)').min(1, { error: 'a program to run (a non-empty string)' }),
  args: z.array(text('an argument (a string)'), { error: 'a list of arguments (strings)' }).optional(),
  env: stringMap('value').optional(),
  disabled: z.boolean({ error: 'true or false' }).optional(),
});

const remoteEntry = z.object({
  type: z.literal(['http', 'sse']),
  url: text('a URL (a string)').min(1, { error: 'a URL such as "https://example.com/mcp"' }),
  headers: stringMap('header value').optional(),
  disabled: z.boolean({ error: 'true or false' }).optional(),
});

/** Names other clients use for the streamable HTTP transport. */
const HTTP_ALIASES = new Set(['streamable-http', 'streamableHttp', 'streamable_http']);

/** One server entry as written; `type` is filled in (`url` means http, `command` stdio). */
export const mcpServerEntrySchema = z.preprocess(
  (value) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
    const entry = value as Record<string, unknown>;
    if (entry.type === undefined) return { ...entry, type: 'url' in entry ? 'http' : 'stdio' };
    if (typeof entry.type === 'string' && HTTP_ALIASES.has(entry.type)) return { ...entry, type: 'http' };
    return entry;
  },
  z.discriminatedUnion('type', [stdioEntry, remoteEntry], {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? 'a server type: "stdio", "http" or "sse"'
        : 'a server such as { "command": "npx", "args": ["-y", "some-server"] } or { "type": "http", "url": "https://…" }',
  }),
);

/** One MCP server entry, as written (before `${VAR}` expansion). */
export type McpServerEntry = z.infer<typeof mcpServerEntrySchema>;

export const mcpServersSchema = z.record(
  z.string().min(1, { error: 'a server name (a non-empty string)' }),
  mcpServerEntrySchema,
  { error: 'an object mapping server names to { "command": … } or { "type": "http", "url": … }' },
);

/** A `.mcp.json` or `--mcp-config` file; other top-level keys are ignored. */
export const mcpFileSchema = z.object(
  { mcpServers: mcpServersSchema },
  { error: 'a JSON object such as { "mcpServers": { "name": { "command": … } } }' },
);

/** A server to start: its name, where it was configured, and its entry as written. */
export interface McpServerSpec {
  name: string;
  /** `settings`, `.mcp.json` or `--mcp-config`: what /mcp shows. */
  source: string;
  entry: McpServerEntry;
}

/** A server's entry with every `${VAR}` and `${VAR:-default}` replaced from the session's environment. */
export type ExpandedServer =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { type: 'http' | 'sse'; url: URL; headers: Record<string, string> };

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands the variables of one entry; a variable that is unset (or empty) takes its default,
 * and one without a default is an error naming it, so a server never starts with half a
 * token or a URL that points somewhere else.
 */
export function expandServer(
  entry: McpServerEntry,
  env: NodeJS.ProcessEnv,
): { ok: true; server: ExpandedServer } | { ok: false; error: string } {
  const missing = new Set<string>();
  const expand = (value: string) =>
    value.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
      const set = env[name];
      if (set !== undefined && set !== '') return set;
      if (fallback !== undefined) return fallback;
      missing.add(name);
      return '';
    });
  const expandMap = (map: Record<string, string> | undefined) =>
    Object.fromEntries(Object.entries(map ?? {}).map(([key, value]) => [key, expand(value)]));

  if (entry.type === 'stdio') {
    const server: ExpandedServer = {
      type: 'stdio',
      command: expand(entry.command),
      args: (entry.args ?? []).map(expand),
      env: expandMap(entry.env),
    };
    return missing.size ? missingError(missing) : { ok: true, server };
  }
  const url = expand(entry.url);
  const headers = expandMap(entry.headers);
  if (missing.size) return missingError(missing);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, error: `its url ${JSON.stringify(url)} is not a URL; write one such as "https://example.com/mcp"` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, error: `its url ${JSON.stringify(url)} is not http(s)` };
  }
  return { ok: true, server: { type: entry.type, url: parsed, headers } };
}

function missingError(missing: Set<string>): { ok: false; error: string } {
  const names = [...missing].map((name) => `\${${name}}`).join(', ');
  return {
    ok: false,
    error: `it uses ${names}, which ${missing.size === 1 ? 'is' : 'are'} not set; set it, or write \${NAME:-default}`,
  };
}

/** What a person reads about an entry: the command line or the URL (variables unexpanded). */
export function describeEntry(entry: McpServerEntry): string {
  if (entry.type === 'stdio') return [entry.command, ...(entry.args ?? [])].join(' ');
  return `${entry.type} ${entry.url}`;
}
