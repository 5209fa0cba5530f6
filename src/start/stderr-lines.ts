import { Chalk } from 'chalk';

/** The lines outrider writes to stderr outside the TUI, coloured only where colour is wanted. */
export interface StderrLines {
  error(text: string): string;
  warn(text: string): string;
  note(text: string): string;
}

/**
 * Colour when stderr is a terminal, unless `NO_COLOR` is set; `FORCE_COLOR` decides over
 * both (`FORCE_COLOR=0` turns it off), as Node itself reads them.
 */
export function colorLevel(env: NodeJS.ProcessEnv, isTTY: boolean): 0 | 1 | 2 | 3 {
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '' || force === 'true') return 1;
    if (force === 'false') return 0;
    const n = Number.parseInt(force, 10);
    return Number.isNaN(n) ? 1 : (Math.max(0, Math.min(3, n)) as 0 | 1 | 2 | 3);
  }
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  return isTTY ? 1 : 0;
}

export function stderrLines(env: NodeJS.ProcessEnv, stream: { isTTY?: boolean }): StderrLines {
  const chalk = new Chalk({ level: colorLevel(env, stream.isTTY === true) });
  return {
    error: (text) => `${chalk.red.bold('outrider:')} ${text}\n`,
    warn: (text) => `${chalk.yellow('outrider:')} ${text}\n`,
    note: (text) => `${chalk.dim('outrider:')} ${text}\n`,
  };
}
