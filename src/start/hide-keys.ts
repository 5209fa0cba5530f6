/**
 * Keeps the provider keys out of outrider's own environment block. A program outrider starts
 * never inherits them (child-env.ts), but the kernel shows any process's environment as it was
 * when the process started, in /proc/<pid>/environ, to every process of the same user: a command
 * the model runs could read `/proc/$PPID/environ` and print the key in any encoding. Deleting a
 * variable (unsetenv) only drops libc's pointer to it; the text stays where the kernel reads it.
 *
 * So at start outrider takes the keys into its own memory, deletes them from `process.env`, and
 * writes zeros over their text in the environment block through /proc/self/mem (a process may
 * write its own memory; no privilege is needed). The keys live on only in the copy of the
 * environment this returns, which the CLI hands down instead of `process.env`.
 */
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { MIN_SECRET_LENGTH, PROVIDER_KEY_VARIABLES } from '../core/config/key-variables.js';

/** What became of the keys in the environment block. */
export type KeyHiding =
  | { state: 'none' }
  | { state: 'blanked'; variables: string[] }
  /** Only on a system without /proc/self/mem (not Linux) or where writing it failed. */
  | { state: 'readable'; variables: string[]; why: string };

export interface HiddenKeys {
  /** The environment with the keys, for the session to read them from; `process.env` itself when there were none. */
  env: NodeJS.ProcessEnv;
  hiding: KeyHiding;
}

/**
 * Takes the provider key variables, and any variable whose value holds one of their values,
 * out of `processEnv` and out of the environment block the kernel shows for this process.
 */
export function hideProviderKeys(processEnv: NodeJS.ProcessEnv, procSelf = '/proc/self'): HiddenKeys {
  const secrets = PROVIDER_KEY_VARIABLES.map((name) => processEnv[name] ?? '').filter((v) => v.length >= MIN_SECRET_LENGTH);
  const variables = Object.keys(processEnv).filter(
    (name) =>
      (PROVIDER_KEY_VARIABLES.includes(name) && processEnv[name] !== '') ||
      secrets.some((secret) => processEnv[name]!.includes(secret)),
  );
  if (variables.length === 0) return { env: processEnv, hiding: { state: 'none' } };
  const env = { ...processEnv };
  for (const name of variables) delete processEnv[name];
  try {
    blankEnvironmentBlock(new Set(variables), procSelf);
    return { env, hiding: { state: 'blanked', variables } };
  } catch (error) {
    return { env, hiding: { state: 'readable', variables, why: (error as Error).message } };
  }
}

/** Byte ranges of the block's entries (`NAME=value`, NUL-separated) whose name is one of `names`. */
export function entriesToBlank(block: Buffer, names: ReadonlySet<string>): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let start = 0; start < block.length;) {
    const nul = block.indexOf(0, start);
    const end = nul === -1 ? block.length : nul;
    const equals = block.indexOf('=', start);
    if (equals !== -1 && equals < end && names.has(block.toString('utf8', start, equals))) ranges.push([start, end]);
    start = end + 1;
  }
  return ranges;
}

/**
 * Zeros over the `names` entries of this process's environment block, then a check that
 * /proc/self/environ holds none of them. Throws, saying why, when it cannot.
 */
function blankEnvironmentBlock(names: ReadonlySet<string>, procSelf: string): void {
  const { start, end } = environmentBlock(readFileSync(`${procSelf}/stat`, 'utf8'));
  const block = Buffer.alloc(end - start);
  const fd = openSync(`${procSelf}/mem`, 'r+');
  try {
    readSync(fd, block, 0, block.length, start);
    for (const [from, to] of entriesToBlank(block, names)) writeSync(fd, Buffer.alloc(to - from), 0, to - from, start + from);
  } finally {
    closeSync(fd);
  }
  const left = entriesToBlank(readFileSync(`${procSelf}/environ`), names);
  if (left.length > 0) throw new Error('the environment block still holds them after writing over it');
}

/** The environment block's addresses, fields 50 and 51 of /proc/<pid>/stat (Linux 3.5 and later). */
export function environmentBlock(stat: string): { start: number; end: number } {
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[50 - 3]);
  const end = Number(fields[51 - 3]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) {
    throw new Error('/proc/self/stat gives no environment block');
  }
  return { start, end };
}

/** One line for `--doctor`: whether a command could read the key from this process's environment block. */
export function keyHidingLine(hiding: KeyHiding): string {
  switch (hiding.state) {
    case 'none':
      return 'provider key: none in the environment';
    case 'blanked':
      return `provider key: ${hiding.variables.join(', ')} taken out of outrider's environment block (/proc/<pid>/environ shows none)`;
    case 'readable':
      return (
        `provider key: ${hiding.variables.join(', ')} could not be taken out of outrider's environment block (${hiding.why}); ` +
        'a command you approve could read it there'
      );
  }
}
