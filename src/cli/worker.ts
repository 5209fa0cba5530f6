/**
 * `outrider worker --queue <redis-url>`: a long-running process that takes sub-agent jobs off a
 * Redis queue (BullMQ) and runs them with this machine's own provider key, permission mode and
 * sandbox (docs/remote.md). It logs one line per job to stderr and shuts down on SIGTERM or
 * SIGINT: it stops taking jobs, gives running ones a grace period, then stops them.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { PERMISSION_MODES, type PermissionMode, loadRemoteWorker } from '../core/index.js';
import { EXIT } from '../start/options.js';
import { stderrLines } from '../start/stderr-lines.js';

/** The environment variable a queue URL (with its password) can come from, so it stays out of `ps`. */
export const QUEUE_URL_VARIABLE = 'OUTRIDER_QUEUE_URL';

interface WorkerFlags {
  queue?: string;
  name?: string;
  concurrency: number;
  labels?: string[];
  namespace?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  toolMode?: string;
  permissionMode?: PermissionMode;
  yolo?: boolean;
  sandbox?: 'read-only' | 'workspace-write' | 'off';
  maxTurns?: number;
  retries: number;
  allowRemote?: string[];
  cacheDir?: string;
  graceSeconds: number;
  lockMs?: number;
  stalledIntervalMs?: number;
}

function wholeNumber(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected a whole number of at least ${min}`);
    return n;
  };
}

function buildCommand(): Command {
  return (
    new Command('outrider worker')
      .description("Take sub-agent jobs off a Redis queue and run them here, with this machine's key, mode and sandbox.")
      .option(
        '--queue <redis-url>',
        `redis:// or rediss:// URL of the queue (or ${QUEUE_URL_VARIABLE}, which keeps a password out of ps)`,
      )
      .option('--name <name>', 'the name sessions show for this worker (default: the host name)')
      .option('--concurrency <n>', 'jobs run at once', wholeNumber(1), 2)
      .option('--labels <list>', 'labels this worker serves, comma-separated (jobs with runsOn: [gpu] need a gpu worker)', (v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .option('--namespace <name>', "queue namespace, the same as the sessions' agents.queue.namespace (default: default)")
      .addOption(new Option('--provider <name>', 'model provider').choices(['anthropic', 'openai']))
      .option('--model <id>', 'model for jobs that name none')
      .option('--base-url <url>', 'API base URL')
      .addOption(new Option('--tool-mode <mode>', 'tool calling: native or text').choices(['native', 'text']))
      .addOption(
        new Option('--permission-mode <mode>', 'the most any job may do here (a job may ask for less); what would ask is denied')
          .choices([...PERMISSION_MODES])
          .default('default'),
      )
      .option('--yolo', 'same as --permission-mode yolo')
      .addOption(
        new Option('--sandbox <mode>', 'OS sandbox for approved commands (the most a job may ask for)').choices([
          'read-only',
          'workspace-write',
          'off',
        ]),
      )
      .option('--max-turns <n>', 'no job runs more model calls than this', wholeNumber(1))
      .option('--retries <n>', 'runs of a job whose worker was lost, after the first (agents.queue.retries)', wholeNumber(0), 0)
      .option('--allow-remote <urls...>', 'git remotes jobs may name (default: any this machine can reach)')
      .option('--cache-dir <dir>', 'where cache clones and job worktrees live (default: ~/.outrider/worker)')
      .option('--grace-seconds <n>', 'on SIGTERM, how long running jobs may go on before they are stopped', wholeNumber(0), 30)
      // BullMQ's lock and stall-check times; shorter ones notice a dead worker sooner (tests use them).
      .addOption(
        new Option('--lock-ms <n>', 'how long a job stays locked without renewal').argParser(wholeNumber(100)).hideHelp(),
      )
      .addOption(
        new Option('--stalled-interval-ms <n>', 'how often stalled jobs are looked for').argParser(wholeNumber(100)).hideHelp(),
      )
      .showHelpAfterError('(run outrider worker --help for usage)')
      .exitOverride()
  );
}

export interface WorkerIo {
  env: NodeJS.ProcessEnv;
  stderr: NodeJS.WriteStream;
  /** Resolves when the process is asked to stop (SIGTERM, SIGINT); the CLI's own by default. */
  stopRequested?: Promise<string>;
}

/** Runs the worker until it is asked to stop; returns the exit code. */
export async function runWorkerCommand(argv: string[], io: WorkerIo): Promise<number> {
  const lines = stderrLines(io.env, io.stderr);
  const command = buildCommand();
  try {
    command.parse(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw error;
  }
  const flags = command.opts<WorkerFlags>();
  const queueUrl = flags.queue ?? io.env[QUEUE_URL_VARIABLE];
  if (!queueUrl) {
    io.stderr.write(lines.error(`no queue: pass --queue redis://host:6379 or set ${QUEUE_URL_VARIABLE}`));
    return EXIT.usage;
  }
  const remote = await loadRemoteWorker();
  const log = (line: string) => io.stderr.write(lines.note(line));
  try {
    const { worker, summary } = await remote.startWorker({
      queueUrl,
      env: io.env,
      ...(flags.name ? { name: flags.name } : {}),
      concurrency: flags.concurrency,
      labels: flags.labels ?? [],
      namespace: flags.namespace,
      provider: flags.provider,
      model: flags.model,
      baseURL: flags.baseUrl,
      toolMode: flags.toolMode,
      permissionMode: flags.yolo ? 'yolo' : (flags.permissionMode ?? 'default'),
      sandbox: flags.sandbox,
      maxTurns: flags.maxTurns,
      retries: flags.retries,
      allowRemotes: flags.allowRemote,
      cacheDir: flags.cacheDir,
      lockMs: flags.lockMs,
      stalledIntervalMs: flags.stalledIntervalMs,
      onLog: log,
    });
    log(`${summary}; stop with SIGTERM`);
    const reason = await (io.stopRequested ?? stopSignal());
    log(`${reason}: no new jobs; running ones get ${flags.graceSeconds} s to finish`);
    await worker.close({ graceMs: flags.graceSeconds * 1000 });
    log('stopped');
    return EXIT.ok;
  } catch (error) {
    if (remote.isWorkerSetupError(error)) {
      io.stderr.write(lines.error(error.message));
      return EXIT.failed;
    }
    throw error;
  }
}

/** The first SIGTERM or SIGINT; a second one ends the process at once. */
function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.once('SIGTERM', () => process.exit(143));
      process.once('SIGINT', () => process.exit(130));
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
