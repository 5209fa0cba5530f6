/**
 * `outrider mcp list|login|logout`: the MCP servers a session here would start and their
 * states, and a remote server's OAuth sign-in (or its stored one forgotten) from the command
 * line, as `/mcp login` and `/mcp logout` do in the TUI. The servers are read as a session
 * reads them (the folder's trust included), without opening one. `add`, `add-json`, `get` and
 * `remove` edit one scope's file (mcp-edit-command.ts).
 */
import { Command, CommanderError } from 'commander';
import {
  type McpServersHere,
  SIGN_IN_TIMEOUT_MS,
  checkMcpServers,
  formatDuration,
  mcpLoginCommand,
  mcpServersHere,
  openInBrowser,
  outriderPaths,
  safeText,
  signInByName,
  signInTarget,
  signOutByName,
} from '../core/index.js';
import { EXIT } from '../start/options.js';
import { describeStartupError } from '../start/session-setup.js';
import { type StderrLines, stderrLines } from '../start/stderr-lines.js';
import { type EditChoice, addEditCommands, runEdit } from './mcp-edit-command.js';
import { notTrustedLine, quoted, serverLines, stateLine } from './mcp-list.js';

/** The exit code of a run the user cancelled with Ctrl+C (128 + SIGINT). */
const CANCELLED = 130;

const NO_SERVERS = 'add them to .mcp.json, to mcpServers in your settings, or pass --mcp-config';

interface McpFlags {
  trust?: boolean;
  mcpConfig?: string[];
  strictMcpConfig?: boolean;
  debug?: boolean;
}

type Chosen = { verb: 'list'; flags: McpFlags } | { verb: 'login' | 'logout'; server: string; flags: McpFlags } | EditChoice;

export interface McpCommandIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
}

function buildCommand(choose: (chosen: Chosen) => void): Command {
  const program = new Command('outrider mcp')
    .description(
      'MCP servers: list them with their state, add, show and remove them, or sign in to a remote one (OAuth) and out again.',
    )
    .showHelpAfterError('(run outrider mcp --help for usage)')
    .exitOverride();
  const withFlags = (command: Command) =>
    command
      .option('--trust', "read this folder's .mcp.json (and its settings' mcpServers) as trusted, as --trust does for a session")
      .option('--mcp-config <files...>', 'the servers of these files (or JSON text) of { "mcpServers": … } too')
      .option('--strict-mcp-config', 'only the --mcp-config servers')
      .option('--debug', 'print stack traces of unexpected errors');
  withFlags(program.command('list'))
    .description('every MCP server a session here would start, with its state after trying to connect')
    .action((flags: McpFlags) => choose({ verb: 'list', flags }));
  withFlags(program.command('login'))
    .argument('<server>', 'a remote (http or sse) server that asks for a sign-in')
    .description('sign in to a remote MCP server in your browser (OAuth); the tokens are kept under ~/.outrider/mcp-auth')
    .action((server: string, flags: McpFlags) => choose({ verb: 'login', server, flags }));
  withFlags(program.command('logout'))
    .argument('<server>', 'a remote server signed in to')
    .description("forget a remote MCP server's stored sign-in")
    .action((server: string, flags: McpFlags) => choose({ verb: 'logout', server, flags }));
  addEditCommands(program, choose);
  return program;
}

/** Runs `outrider mcp …` (argv without `mcp`); returns the exit code. */
export async function runMcpCommand(argv: string[], io: McpCommandIo): Promise<number> {
  let chosen: Chosen | undefined;
  try {
    buildCommand((c) => (chosen = c)).parse(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw error;
  }
  if (!chosen) return EXIT.usage;
  if (chosen.verb === 'edit') return runEdit(chosen, io);
  const lines = stderrLines(io.env, io.stderr);
  let here: McpServersHere;
  try {
    here = mcpServersHere({
      cwd: io.cwd,
      env: io.env,
      flags: {},
      ...(chosen.flags.trust ? { trustProject: true } : {}),
      ...(chosen.flags.mcpConfig?.length ? { mcpConfig: chosen.flags.mcpConfig } : {}),
      ...(chosen.flags.strictMcpConfig ? { strictMcpConfig: true } : {}),
    });
  } catch (error) {
    io.stderr.write(lines.error(describeStartupError(error, chosen.flags.debug)));
    return EXIT.usage;
  }
  for (const warning of here.warnings) io.stderr.write(lines.warn(safeText(warning)));
  const cancel = new AbortController();
  // Ctrl+C: servers closed and the sign-in's callback with them, then exit 130 (a second one ends the process at once).
  const onSignal = () => cancel.abort(new Error('cancelled'));
  process.once('SIGINT', onSignal);
  try {
    if (chosen.verb === 'list') return await list(here, { ...io, lines, signal: cancel.signal });
    if (chosen.verb === 'login') return await login(chosen.server, here, { ...io, lines, signal: cancel.signal });
    return await logout(chosen.server, here, { ...io, lines });
  } finally {
    process.off('SIGINT', onSignal);
  }
}

type RunIo = McpCommandIo & { lines: StderrLines; signal: AbortSignal };

async function list(here: McpServersHere, io: RunIo): Promise<number> {
  if (here.specs.length === 0 && here.untrusted.length === 0) {
    io.stdout.write(`No MCP servers here: ${NO_SERVERS}.\n`);
    return EXIT.ok;
  }
  const statuses = await checkMcpServers(here.specs, {
    env: io.env,
    cwd: io.cwd,
    settings: here.settings,
    authDir: outriderPaths(io.env).mcpAuthDir,
    signal: io.signal,
  });
  if (io.signal.aborted) {
    io.stderr.write(io.lines.note('cancelled'));
    return CANCELLED;
  }
  const out = [
    ...here.specs.flatMap((spec, i) => serverLines(spec, stateLine(statuses[i]!))),
    ...here.untrusted.flatMap((spec) => serverLines(spec, notTrustedLine(here.trust))),
  ];
  io.stdout.write(`${out.join('\n')}\n`);
  return EXIT.ok;
}

/** The target of a login or logout, or the line saying why there is none. */
function remoteTarget(name: string, here: McpServersHere, env: NodeJS.ProcessEnv, verb: 'login' | 'logout') {
  const shown = quoted(name);
  const target = signInTarget(here.specs, name, env);
  switch (target.kind) {
    case 'remote':
    case 'own-authorization':
      return target;
    case 'unknown': {
      const held = here.untrusted.find((spec) => spec.name === name);
      if (held) {
        return `MCP server ${shown} of ${held.source} is ${notTrustedLine(here.trust).replace(/^not started: /, 'not used here: ')}`;
      }
      const known = target.known.map((n) => quoted(n)).join(', ');
      return known
        ? `no MCP server is named ${shown} here (there are: ${known}); outrider mcp list shows them`
        : `no MCP server is named ${shown} here: there are none (${NO_SERVERS})`;
    }
    case 'stdio':
      return `MCP server ${shown} is a local program (stdio): OAuth ${verb === 'login' ? 'sign-in' : 'sign-out'} is for remote (http, sse) servers; what a local one needs goes in its "env"`;
    case 'invalid':
      return `MCP server ${shown}: ${safeText(target.error)}`;
    default: {
      const unknown: never = target;
      return unknown;
    }
  }
}

async function login(name: string, here: McpServersHere, io: RunIo): Promise<number> {
  const target = remoteTarget(name, here, io.env, 'login');
  if (typeof target === 'string') {
    io.stderr.write(io.lines.error(target));
    return EXIT.failed;
  }
  const shown = quoted(name);
  if (target.kind === 'own-authorization') {
    io.stderr.write(
      io.lines.error(
        `MCP server ${shown} sets its own Authorization header: it needs no sign-in (remove the header to sign in with OAuth instead)`,
      ),
    );
    return EXIT.failed;
  }
  try {
    const outcome = await signInByName(target, {
      env: io.env,
      cwd: io.cwd,
      settings: here.settings,
      authDir: outriderPaths(io.env).mcpAuthDir,
      signal: io.signal,
      onAuthorizationUrl: (url) =>
        void openInBrowser(url, io.env).then((opened) =>
          io.stderr.write(
            io.lines.note(
              `${opened ? `sign in to ${shown} in the browser that opened, or open this page` : `sign in to ${shown}: open this page in a browser`} (waiting up to ${formatDuration(SIGN_IN_TIMEOUT_MS)}; Ctrl+C cancels):`,
            ) + `${safeText(url)}\n`,
          ),
        ),
    });
    const { status } = outcome;
    if (outcome.kind === 'needs-none') {
      io.stderr.write(io.lines.error(`MCP server ${shown} needs no sign-in: it answered without one (${stateLine(status)})`));
      return EXIT.failed;
    }
    if (outcome.kind === 'unreachable') {
      io.stderr.write(io.lines.error(`cannot sign in to ${shown}: it ${stateLine(status)}`));
      return EXIT.failed;
    }
    if (status.state !== 'ready') {
      io.stderr.write(io.lines.error(`signed in to ${shown}, but it did not start: ${safeText(status.error ?? status.state)}`));
      return EXIT.failed;
    }
    io.stdout.write(`signed in to ${shown}: ${status.tools.length} tool${status.tools.length === 1 ? '' : 's'}\n`);
    return EXIT.ok;
  } catch (error) {
    if (io.signal.aborted) {
      io.stderr.write(io.lines.note(`sign-in to ${shown} cancelled`));
      return CANCELLED;
    }
    const why = safeText(error instanceof Error ? error.message : String(error));
    io.stderr.write(io.lines.error(`sign-in to ${shown} failed: ${why}; ${mcpLoginCommand(name)} starts another`));
    return EXIT.failed;
  }
}

async function logout(name: string, here: McpServersHere, io: McpCommandIo & { lines: StderrLines }): Promise<number> {
  const target = remoteTarget(name, here, io.env, 'logout');
  if (typeof target === 'string') {
    io.stderr.write(io.lines.error(target));
    return EXIT.failed;
  }
  const shown = quoted(name);
  try {
    const had = await signOutByName(target, outriderPaths(io.env).mcpAuthDir);
    io.stdout.write(had ? `signed out of ${shown}: its stored sign-in is forgotten\n` : `${shown} had no stored sign-in\n`);
    return EXIT.ok;
  } catch (error) {
    const why = safeText(error instanceof Error ? error.message : String(error));
    io.stderr.write(io.lines.error(`could not forget the sign-in of ${shown}: ${why}`));
    return EXIT.failed;
  }
}
