/**
 * `outrider mcp add|add-json|get|remove`, shaped as `claude mcp …`: a server written to (or
 * read from, or removed from) the file of one scope, the one a session here reads for it
 * (mcp-scopes.ts). Nothing is started: `outrider mcp list` shows whether an added server starts.
 */
import { type Command, Option } from 'commander';
import {
  MCP_SCOPES,
  MCP_SERVER_NAME,
  type McpScope,
  McpScopeError,
  addScopeServer,
  checkedMcpEntry,
  describeScopeFile,
  mcpScopeFile,
  removeScopeServer,
  safeText,
} from '../core/index.js';
import { EXIT } from '../start/options.js';
import { type StderrLines, stderrLines } from '../start/stderr-lines.js';
import { getServer, scopesHolding, shownName } from './mcp-edit-get.js';

export interface EditIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
}

/** A parsed edit verb, ready to run. */
export interface EditChoice {
  verb: 'edit';
  run: (io: EditIo & { lines: StderrLines }) => Promise<number>;
}

/** A usage problem: the command line, not the files, is wrong. */
class UsageError extends Error {}

const TRANSPORTS = ['stdio', 'http', 'sse'] as const;

interface AddFlags {
  transport: (typeof TRANSPORTS)[number];
  scope: McpScope;
  env: string[];
  header: string[];
}

const collect = (value: string, previous: string[]) => [...previous, value];
const scopeOption = () =>
  new Option('-s, --scope <scope>', 'local (yours, this folder), project (.mcp.json) or user (yours, every folder)').choices(
    MCP_SCOPES,
  );

/** Registers the four verbs on `outrider mcp`. */
export function addEditCommands(program: Command, choose: (choice: EditChoice) => void): void {
  program
    .command('add')
    .description(
      'add an MCP server to a scope\'s file. Put the server\'s own flags after --:\n  outrider mcp add -e API_KEY=… files -- npx -y some-server --root .\n  outrider mcp add --transport http -H "Authorization: Bearer …" docs https://example.com/mcp',
    )
    .argument('<name>', 'letters, digits, _ and -, up to 64')
    .argument('<commandOrUrl>', 'the program to run (stdio), or the URL (http, sse)')
    .argument('[args...]', "the program's arguments")
    .addOption(new Option('-t, --transport <transport>', 'how to reach it').choices(TRANSPORTS).default('stdio'))
    .addOption(scopeOption().default('local'))
    .option('-e, --env <KEY=value>', "an environment variable of a stdio server's program (repeatable)", collect, [])
    .option('-H, --header <"Name: value">', 'a header sent to an http or sse server (repeatable)', collect, [])
    .action((name: string, target: string, args: string[], flags: AddFlags) =>
      choose({ verb: 'edit', run: (io) => add(name, () => entryOf(target, args, flags), flags.scope, io) }),
    );
  program
    .command('add-json')
    .description('add an MCP server given as the JSON of its entry, as .mcp.json writes one')
    .argument('<name>', 'letters, digits, _ and -, up to 64')
    .argument('<json>', 'such as \'{"type":"http","url":"https://example.com/mcp"}\'')
    .addOption(scopeOption().default('local'))
    .action((name: string, json: string, flags: { scope: McpScope }) =>
      choose({ verb: 'edit', run: (io) => add(name, () => parseEntryJson(json), flags.scope, io) }),
    );
  program
    .command('get')
    .description('where an MCP server is configured (scope, file) and what it runs or reaches')
    .argument('<name>', 'the server')
    .action((name: string) => choose({ verb: 'edit', run: (io) => Promise.resolve(getServer(name, io)) }));
  program
    .command('remove')
    .description('remove an MCP server from the scope that has it')
    .argument('<name>', 'the server')
    .addOption(scopeOption())
    .action((name: string, flags: { scope?: McpScope }) => choose({ verb: 'edit', run: (io) => remove(name, flags.scope, io) }));
}

/** Runs one parsed edit verb. */
export async function runEdit(choice: EditChoice, io: EditIo): Promise<number> {
  return choice.run({ ...io, lines: stderrLines(io.env, io.stderr) });
}

type RunIo = EditIo & { lines: StderrLines };

async function add(name: string, entry: () => Record<string, unknown>, scope: McpScope, io: RunIo): Promise<number> {
  try {
    if (!MCP_SERVER_NAME.test(name)) {
      throw new UsageError(`${shownName(name)} is not a server name: use letters, digits, _ and - (up to 64)`);
    }
    const raw = entry();
    const target = mcpScopeFile(scope, io);
    const checked = checkedMcpEntry(name, raw, target);
    await addScopeServer(target, name, raw);
    if (scope === 'project') warnCommitted(checked, io);
    const trust =
      scope === 'project' ? '; it starts in a folder you trust (outrider asks at its next start here, or pass --trust)' : '';
    io.stdout.write(
      `added MCP server "${name}" (${checked.type}) to the ${scope} scope: ${safeText(describeScopeFile(target))}${trust}\n`,
    );
    return EXIT.ok;
  } catch (error) {
    return failed(error, io);
  }
}

async function remove(name: string, scope: McpScope | undefined, io: RunIo): Promise<number> {
  try {
    const shown = shownName(name);
    let chosen = scope;
    if (!chosen) {
      const holding = scopesHolding(name, io, MCP_SCOPES);
      if (holding.length > 1) {
        const flags = holding.map((s) => `--scope ${s}`).join(' or ');
        throw new McpScopeError(`MCP server ${shown} is in the ${holding.join(' and ')} scopes: pass ${flags}`);
      }
      if (holding.length === 0) throw new McpScopeError(notFound(name, io));
      chosen = holding[0]!;
    }
    const target = mcpScopeFile(chosen, io);
    if (!(await removeScopeServer(target, name))) {
      const elsewhere = scopesHolding(name, io, MCP_SCOPES);
      throw new McpScopeError(
        elsewhere.length
          ? `no MCP server named ${shown} in the ${chosen} scope; it is in the ${elsewhere.join(' and ')} scope${elsewhere.length > 1 ? 's' : ''}`
          : notFound(name, io),
      );
    }
    io.stdout.write(`removed MCP server ${shown} from the ${chosen} scope: ${safeText(describeScopeFile(target))}\n`);
    return EXIT.ok;
  } catch (error) {
    return failed(error, io);
  }
}

function notFound(name: string, io: RunIo): string {
  const shown = shownName(name);
  const claude = mcpScopeFile('claude-user', io);
  if (io.env.HOME && scopesHolding(name, io, ['claude-user']).length) {
    return `MCP server ${shown} is in Claude Code's user scope (${safeText(describeScopeFile(claude))}), which outrider reads and leaves to claude mcp remove -s user`;
  }
  return `no MCP server named ${shown} in the local, project or user scope (outrider mcp list shows every source a session reads)`;
}

function failed(error: unknown, io: RunIo): number {
  if (error instanceof UsageError || error instanceof McpScopeError) {
    io.stderr.write(io.lines.error(safeText(error.message)));
    return error instanceof UsageError ? EXIT.usage : EXIT.failed;
  }
  const why = error instanceof Error ? error.message : String(error);
  io.stderr.write(io.lines.error(safeText(why)));
  return EXIT.failed;
}

/** `add`'s arguments as the entry `claude mcp add` writes. */
function entryOf(target: string, args: string[], flags: AddFlags): Record<string, unknown> {
  if (flags.transport === 'stdio') {
    if (flags.header.length) throw new UsageError('-H is for http and sse servers; a stdio server takes -e KEY=value');
    return { type: 'stdio', command: target, args, env: envOf(flags.env) };
  }
  if (flags.env.length) throw new UsageError(`-e is for stdio servers; an ${flags.transport} server takes -H "Name: value"`);
  if (args.length) {
    throw new UsageError(
      `an ${flags.transport} server takes its URL alone, not ${safeText(JSON.stringify(args[0]))}; put outrider's options before the name`,
    );
  }
  const headers = headersOf(flags.header);
  return { type: flags.transport, url: target, ...(Object.keys(headers).length ? { headers } : {}) };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A header name as HTTP allows one (a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function envOf(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    const key = equals < 0 ? pair : pair.slice(0, equals);
    if (equals < 0 || !ENV_NAME.test(key)) {
      throw new UsageError(`-e ${safeText(JSON.stringify(clip(pair)))}: write KEY=value, KEY of letters, digits and _`);
    }
    env[key] = pair.slice(equals + 1);
  }
  return env;
}

function headersOf(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const key = line.slice(0, Math.max(colon, 0)).trim();
    if (colon < 0 || !HEADER_NAME.test(key) || /[\r\n\0]/.test(line)) {
      throw new UsageError(`-H ${safeText(JSON.stringify(clip(line)))}: write "Name: value", on one line`);
    }
    headers[key] = line.slice(colon + 1).trim();
  }
  return headers;
}

function parseEntryJson(json: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new UsageError(`the server's JSON does not parse: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('the server\'s JSON must be an object such as {"command":"npx","args":["-y","some-server"]}');
  }
  return value as Record<string, unknown>;
}

/** Claude Code writes what it is given into `.mcp.json`; so does outrider, saying where it went. */
function warnCommitted(entry: ReturnType<typeof checkedMcpEntry>, io: RunIo): void {
  const values = entry.type === 'stdio' ? entry.env : entry.headers;
  const literal = Object.entries(values ?? {})
    .filter(([, value]) => value !== '' && !value.includes('${'))
    .map(([key]) => key);
  if (literal.length === 0) return;
  const first = literal[0]!;
  io.stderr.write(
    io.lines.warn(
      `.mcp.json is usually committed, and it now holds the value${literal.length > 1 ? 's' : ''} of ${literal.map(safeText).join(', ')} as given; ` +
        `write \${${ENV_NAME.test(first) ? first : 'NAME'}} in place of a secret to take it from the environment, or use --scope local`,
    ),
  );
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
