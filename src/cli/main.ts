import packageJson from '../../package.json' with { type: 'json' };

/**
 * Entry point of the CLI bundle. `--version` answers before anything else loads; every
 * other path imports the command-line parser, and heavy modules load only when used.
 */
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    process.stdout.write(`${packageJson.version}\n`);
    return 0;
  }
  const { runCli } = await import('./program.js');
  return runCli(argv);
}
