import { isatty } from 'node:tty';
import packageJson from '../../package.json' with { type: 'json' };
import { type EarlyInput, captureEarlyInput } from '../start/early-input.js';
import { hideProviderKeys } from '../start/hide-keys.js';
import type { CliOptions } from '../start/options.js';

/** Flags that never start the TUI: no need to hold the terminal's keys for it. */
const NOT_INTERACTIVE = new Set(['-p', '--print', '-h', '--help', '-v', '--version']);

/**
 * Entry point of the CLI bundle. `--version` answers before anything else loads; every
 * other path first takes the provider keys out of the process's environment (hide-keys.ts),
 * then imports the command-line parser; heavy modules load only when used.
 */
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    process.stdout.write(`${packageJson.version}\n`);
    return 0;
  }
  const { env, hiding } = hideProviderKeys(process.env);
  // The TUI is likely: take the terminal's keys from now on, so nothing typed while it loads is
  // echoed above it or lost. Every other path gives the terminal back. isatty(0), not
  // process.stdin.isTTY: the getter builds the stdin stream, which a headless -p run never reads.
  const interactive = isatty(0) && process.stdout.isTTY && !argv.some((arg) => NOT_INTERACTIVE.has(arg.split('=')[0]!));
  const early = interactive ? captureEarlyInput(process.stdin) : undefined;
  const { runCli } = await import('./program.js');
  return runCli(argv, { env, keyHiding: hiding }, early);
}

/**
 * The TUI for a command line the headless bundle already parsed and found wants it (`--model -p`
 * in a terminal: the launcher sent it there for its `-p`). It takes the options as parsed there,
 * so nothing is parsed or said twice (--debug's protection line, its probe); `env` is the
 * environment with the keys the headless bundle took out of the process's own.
 */
export async function runTui(options: CliOptions, env: NodeJS.ProcessEnv, early?: EarlyInput): Promise<number> {
  const { runInteractive } = await import('../ui/run.js');
  return runInteractive(options, env, early);
}
