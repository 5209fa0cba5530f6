import type { DeadlineTimers } from './grep-js.js';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { GREP_COUNT_CAP, type GrepOutcome, type GrepQuery, cutMatchLine, globFilter } from './grep-query.js';
import { userExcludesFile } from './git-excludes.js';
import { displayPath } from '../platform/paths.js';
import { toPosix } from './walk-files.js';

const STDERR_MAX = 4_000;
const TYPE_NAME = 'outrider';

/**
 * ripgrep's arguments for a query, following the rule set in ignore-rules.ts: rg's own ignore
 * files and defaults (a .gitignore counts inside a git repository only), hidden files searched,
 * `.git` skipped, and the user's git excludes file given by us (`userExcludes`, found as
 * git-excludes.ts finds it) instead of rg's own lookup, which differs between rg versions.
 * `--null` ends every printed path with a NUL, so paths holding `:` parse unambiguously.
 */
export function rgArgs(query: GrepQuery, options: { userExcludes?: string } = {}): string[] {
  const args = ['--no-heading', '--line-number', '--color', 'never', '--with-filename', '--null'];
  args.push('--hidden', '--glob', '!.git', '--no-ignore-global', '--sort', 'path');
  if (options.userExcludes) args.push('--ignore-file', options.userExcludes);
  if (query.ignoreCase) args.push('--ignore-case');
  args.push(...typeArgs(query.glob));
  if (query.mode === 'files_with_matches') args.push('--files-with-matches');
  if (query.mode === 'count') args.push('--count');
  args.push('--regexp', query.pattern, '--');
  // Run from the root with a relative target so rg prints paths as displayPath would.
  const target = displayPath(query.workspace, query.target);
  if (target !== '.') args.push(target);
  return args;
}

/**
 * The glob's file-name part as an rg file type. rg's own --glob would override the ignore rules
 * (a `*.ts` glob would bring back every ignored .ts file), file types do not. A glob with a `/`
 * is narrowed by its last segment here and checked in full on rg's output.
 */
function typeArgs(glob: string | undefined): string[] {
  if (!glob) return [];
  const exclude = glob.startsWith('!');
  const pattern = exclude ? glob.slice(1) : glob;
  const slash = pattern.lastIndexOf('/');
  const name = pattern.slice(slash + 1);
  if (slash === -1) return ['--type-add', `${TYPE_NAME}:${name}`, exclude ? '--type-not' : '--type', TYPE_NAME];
  if (exclude || name === '**' || name === '' || /[{}]/.test(pattern.slice(0, slash))) return [];
  return ['--type-add', `${TYPE_NAME}:${name}`, '--type', TYPE_NAME];
}

/** Runs rg (no shell, in `env`) and collects its first `limit` result lines, counting the rest. */
/** How long rg may run, and the timers that count it (tests pass a fake clock). */
export interface RgDeadline {
  ms: number;
  timers: DeadlineTimers;
}

export async function searchWithRg(
  rgPath: string,
  query: GrepQuery,
  env: NodeJS.ProcessEnv,
  deadline: RgDeadline,
): Promise<GrepOutcome> {
  query.signal.throwIfAborted();
  // The user's file is matched from the workspace root, rg's working directory, as in the JavaScript walk.
  const userExcludes = (await userExcludesFile(env, query.workspace.root))?.path;
  query.signal.throwIfAborted();
  return runRg(rgPath, query, rgArgs(query, { userExcludes }), env, deadline);
}

function runRg(
  rgPath: string,
  query: GrepQuery,
  args: string[],
  env: NodeJS.ProcessEnv,
  deadline: RgDeadline,
): Promise<GrepOutcome> {
  const keepPath = pathFilter(query);
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, args, {
      cwd: query.workspace.root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: query.signal,
    });
    const lines: string[] = [];
    let total = 0;
    let countCapped = false;
    let partial = '';
    let stderr = '';
    // files_with_matches prints `path\0`; the other modes `path\0rest\n`.
    const separator = query.mode === 'files_with_matches' ? '\0' : '\n';
    // rg waits for ever on a FIFO it was told to read (a .gitignore that is one): the search ends at the deadline.
    let stoppedAt: number | undefined;
    const timer = deadline.timers.setTimeout(() => {
      stoppedAt = deadline.ms;
      child.kill('SIGKILL');
    }, deadline.ms);

    const take = (record: string): void => {
      if (record === '' || countCapped) return;
      const nul = record.indexOf('\0');
      const file = nul === -1 ? record : record.slice(0, nul);
      if (!keepPath(file)) return;
      total++;
      if (lines.length < query.limit) lines.push(cutMatchLine(nul === -1 ? file : `${file}:${record.slice(nul + 1)}`));
      if (total >= GREP_COUNT_CAP) {
        countCapped = true;
        child.kill();
      }
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const records = (partial + chunk).split(separator);
      partial = records.pop() ?? '';
      records.forEach(take);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < STDERR_MAX) stderr += chunk;
    });
    child.on('error', (error) => {
      deadline.timers.clearTimeout(timer);
      if (query.signal.aborted) reject(abortReason(query.signal));
      else resolve({ ok: false, error: `rg could not be started (${rgPath}): ${error.message}` });
    });
    child.on('close', (code) => {
      deadline.timers.clearTimeout(timer);
      if (query.signal.aborted) return reject(abortReason(query.signal));
      take(partial);
      if (stoppedAt !== undefined) {
        resolve({ ok: true, lines, total, countCapped, notes: [rgDeadlineNote(stoppedAt, total)] });
        return;
      }
      const message = stderr.trim().slice(0, STDERR_MAX);
      // rg exits 2 on any error, also when some files were unreadable but others matched.
      if (code === 2 && total === 0 && !countCapped) {
        const invalid = /regex parse error|error parsing regex/i.test(message);
        resolve({ ok: false, error: invalid ? `Invalid regex ${query.pattern}: ${message}` : `rg failed: ${message}` });
        return;
      }
      const warning = code === 2 && message ? message.split('\n', 1)[0] : undefined;
      resolve({ ok: true, lines, total, countCapped, warning });
    });
  });
}

function rgDeadlineNote(ms: number, found: number): string {
  const so = found > 0 ? `; the ${found} result(s) above are those found until then` : '';
  return `rg was stopped after ${Math.round(ms / 100) / 10} s${so}: something in the tree kept it waiting (a FIFO, a slow mount); narrow path or glob`;
}

/** A glob with a `/` is matched here, against the path below the target, as the JavaScript search does. */
function pathFilter(query: GrepQuery): (printed: string) => boolean {
  const glob = query.glob;
  if (!glob || !glob.replace(/^!/, '').includes('/')) return () => true;
  const keep = globFilter(glob);
  return (printed) => keep(toPosix(path.relative(query.target, path.resolve(query.workspace.root, printed))));
}

/** Why the search stopped, as an Error (an abort's reason may be any value). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('the search was stopped');
}
