/** Entry point of the CLI bundle; heavy modules load only when a command needs them. */
export async function main(argv: string[]): Promise<number> {
  const { runCli } = await import('./program.js');
  return runCli(argv);
}
