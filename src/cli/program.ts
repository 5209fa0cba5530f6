import { isatty } from 'node:tty';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import type { EarlyInput } from '../start/early-input.js';
import { claudeCodeOptions } from './claude-flags.js';
import type { KeyHiding } from '../start/hide-keys.js';
import { type CliOptions, EXIT } from '../start/options.js';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

function positiveAmount(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected an amount above 0, e.g. 0.50');
  return n;
}

/** --max-agents: the same bound as the `agents.maxConcurrent` setting; 0 offers no agent tools. */
function agentCount(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0 || n > 32) {
    throw new InvalidArgumentError('expected a whole number from 0 to 32 (0: no sub-agents)');
  }
  return n;
}

function buildProgram(): Command {
  const program = new Command('outrider')
    .description('A terminal coding agent with background sub-agents.')
    .version(packageJson.version, '-v, --version')
    .option('-p, --print [prompt]', 'run headless: answer the prompt (or stdin) and exit')
    .addOption(
      new Option(
        '--output-format <format>',
        "headless output (stream-json: Claude Code's messages; events-json: outrider's events)",
      )
        .choices(['text', 'json', 'stream-json', 'events-json'])
        .default('text'),
    )
    .addOption(
      new Option('--input-format <format>', 'headless input (stream-json: user messages on stdin, one JSON object a line)')
        .choices(['text', 'stream-json'])
        .default('text'),
    )
    .option('--verbose', 'accepted for Claude Code compatibility (stream-json already prints every message)')
    .addOption(new Option('--provider <name>', 'model provider').choices(['anthropic', 'openai']))
    .option('--model <id>', 'model id (default: per provider, or OUTRIDER_MODEL)')
    .option('--base-url <url>', 'API base URL, e.g. http://localhost:11434/v1 for Ollama')
    .addOption(
      new Option('--tool-mode <mode>', 'tool calling: native, or text for endpoints without tools').choices(['native', 'text']),
    )
    .addOption(
      new Option(
        '--effort <level>',
        'how hard the model reasons, where it takes an effort (thinking is billed as output)',
      ).choices(['low', 'medium', 'high', 'max']),
    )
    .addOption(
      new Option('--permission-mode <mode>', "what runs without asking (Claude Code's names too)").choices([
        'default',
        'accept-edits',
        'plan',
        'yolo',
        'acceptEdits',
        'bypassPermissions',
      ]),
    )
    .option('--yolo', 'allow every tool call without asking (same as --permission-mode yolo)')
    .option('--max-turns <n>', 'stop after this many model calls per prompt', positiveInt)
    .option('-c, --continue', 'resume the newest session of this directory')
    .option('-r, --resume [id]', "resume a session by id (without one: list this directory's sessions)")
    .option('--add-dir <dir...>', 'allow edits in this directory too')
    .option('--queue <redis-url>', 'send sub-agent jobs to workers on this Redis queue (docs/remote.md)')
    .option('--queue-remote <git-url>', 'the git remote this session and its workers share (with --queue)')
    .option('--queue-namespace <name>', "the queue's keys live under outrider:<name> (with --queue)")
    .option('--mcp-config <files...>', 'start the MCP servers of these files (or JSON text) of { "mcpServers": … }')
    .option(
      '--trust',
      "apply this folder's .outrider/settings.json and .mcp.json in full for this run (mode, dirs, provider, URL, MCP servers)",
    )
    .option('--max-agents <n>', 'sub-agents running at once, 1 to 32 (default 4); 0: no agent tools', agentCount)
    .option('--no-wait-agents', 'headless: do not wait for running sub-agents before exiting')
    .option('--max-budget-tokens <n>', 'stop sub-agents when the session passes this many tokens', positiveInt)
    .option('--agents <json>', 'agents for this run, in Claude Code\'s format: \'{"reviewer": {"description": …, "prompt": …}}\'')
    .option('--max-budget-usd <dollars>', 'stop sub-agents when the session has cost this many dollars', positiveAmount)
    .addOption(
      new Option('--sandbox <mode>', 'OS sandbox for approved bash commands (judged read-only ones: always read-only)').choices([
        'read-only',
        'workspace-write',
        'off',
      ]),
    )
    .option('--doctor', 'print which protection is active (sandbox, git hardening) and exit')
    .option('--debug', 'print stack traces and debug details to stderr')
    .showHelpAfterError('(run outrider --help for usage)')
    .exitOverride();
  for (const option of claudeCodeOptions()) program.addOption(option);
  return program;
}

/** The process as the CLI sees it once the keys are out of its environment block (hide-keys.ts). */
export interface CliProcess {
  /** The environment with the provider keys: read it, never `process.env`, which no longer holds them. */
  env: NodeJS.ProcessEnv;
  keyHiding: KeyHiding;
}

/**
 * Parses argv and runs the chosen front end; returns the exit code. `early` holds the keys
 * typed since start-up: the TUI takes them, every other path gives the terminal back.
 */
export async function runCli(argv: string[], cli: CliProcess, early?: EarlyInput): Promise<number> {
  let tui = false;
  try {
    return await chooseAndRun(argv, cli, early, () => (tui = true));
  } finally {
    if (!tui) early?.release();
  }
}

async function chooseAndRun(
  argv: string[],
  { env, keyHiding }: CliProcess,
  early: EarlyInput | undefined,
  startingTui: () => void,
): Promise<number> {
  if (argv[0] === 'worker') {
    // A long-running process: the terminal is given back now, not when it ends (docs/remote.md).
    early?.release();
    const { runWorkerCommand } = await import('./worker.js');
    return runWorkerCommand(argv.slice(1), { env, stderr: process.stderr });
  }
  if (argv[0] === 'mcp') {
    // `outrider mcp list|login|logout`: no session; a sign-in waits for the browser, and Ctrl+C must reach it.
    early?.release();
    const { runMcpCommand } = await import('./mcp-command.js');
    return runMcpCommand(argv.slice(1), { env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
  }
  // `outrider acp [flags]`: an ACP agent for editors, with the session flags of the command line (docs/acp.md).
  const acp = argv[0] === 'acp';
  if (acp) early?.release();
  const program = buildProgram();
  try {
    program.parse(acp ? argv.slice(1) : argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit through here with code 0; usage errors were printed already.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    throw error;
  }
  const options = program.opts<CliOptions>();
  if (acp) {
    const { runAcpCommand } = await import('./acp/acp-command.js');
    return runAcpCommand(options, program.args, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env });
  }
  if (options.doctor) {
    const { runDoctor } = await import('../start/doctor.js');
    return runDoctor(options, { stdout: process.stdout, stderr: process.stderr, env, cwd: process.cwd(), keyHiding });
  }
  if (options.resume === true) {
    const { printSessions } = await import('./list-sessions.js');
    return printSessions({ stdout: process.stdout, env, cwd: process.cwd() });
  }
  if (program.args.length > 0 && options.print === undefined) {
    const { stderrLines } = await import('../start/stderr-lines.js');
    process.stderr.write(
      stderrLines(env, process.stderr).error(
        `unexpected argument "${program.args[0]}": to run a prompt headless use -p "<prompt>"`,
      ),
    );
    return EXIT.usage;
  }
  if (options.debug) {
    const { debugProtectionLine } = await import('../start/doctor.js');
    await debugProtectionLine(options, { stderr: process.stderr, env, cwd: process.cwd() });
  }
  if (options.print !== undefined || !isatty(0) || options.inputFormat === 'stream-json') {
    const { runHeadless } = await import('./headless.js');
    return runHeadless(options, {
      // A getter: process.stdin builds its stream on first use, and `-p "<prompt>"` never reads it.
      get stdin() {
        return process.stdin;
      },
      stdout: process.stdout,
      stderr: process.stderr,
      env,
      cwd: process.cwd(),
    });
  }
  startingTui();
  const { runInteractive } = await import('../ui/run.js');
  return runInteractive(options, env, early);
}
