/**
 * The JavaScript grep, for machines without rg, run in a worker thread. JavaScript's regex
 * engine backtracks: `(a+)+$` over a long run of `a`s followed by `!` takes longer than the
 * age of the universe, and on the main thread it would block the event loop, so neither
 * SIGINT nor SIGTERM could be handled. A worker can be terminated mid-match; an engine without
 * backtracking (RE2) would need a native module or a new dependency, and would change which
 * patterns are accepted (no lookaround, no backreferences). The worker keeps JavaScript's
 * syntax and stops on abort or at a deadline, returning the results found until then.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { GREP_COUNT_CAP, type GrepOutcome, type GrepQuery } from './grep-query.js';
import { type JsSearchMessage, type JsSearchQuery, MAX_FILE_BYTES } from './grep-js-search.js';

/** Timers for the deadline; tests pass a fake clock. */
export interface DeadlineTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface JsGrepOptions {
  /** The worker script; default grep-worker.js beside this module (in the bundle, dist/grep-worker.js). */
  worker?: URL;
  /** How long one search may run; default 30 s. */
  deadlineMs?: number;
  timers?: DeadlineTimers;
  /** Called with the running total after each file with results (tests wait on it). */
  onProgress?: (total: number) => void;
}

export const JS_GREP_DEADLINE_MS = 30_000;

export const realDeadlineTimers: DeadlineTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Where the built bundle keeps the worker: beside the chunk this module is bundled into. */
export function defaultGrepWorker(): URL {
  return new URL('./grep-worker.js', import.meta.url);
}

/** Runs the query in a worker; rejects with the abort reason when the signal fires. */
export async function searchWithJs(query: GrepQuery, options: JsGrepOptions = {}): Promise<GrepOutcome> {
  query.signal.throwIfAborted();
  try {
    // Compiling never backtracks; a bad pattern is answered without starting a worker.
    new RegExp(query.pattern, query.ignoreCase ? 'i' : '');
  } catch (error) {
    return { ok: false, error: `Invalid regex ${query.pattern}: ${(error as Error).message}` };
  }
  const data: JsSearchQuery = {
    pattern: query.pattern,
    ignoreCase: query.ignoreCase,
    glob: query.glob,
    mode: query.mode,
    target: query.target,
    workspace: query.workspace,
  };
  return runWorker(query, data, {
    worker: options.worker ?? defaultGrepWorker(),
    deadlineMs: options.deadlineMs ?? JS_GREP_DEADLINE_MS,
    timers: options.timers ?? realDeadlineTimers,
    onProgress: options.onProgress,
  });
}

function runWorker(
  query: GrepQuery,
  data: JsSearchQuery,
  options: Required<Omit<JsGrepOptions, 'onProgress'>> & Pick<JsGrepOptions, 'onProgress'>,
): Promise<GrepOutcome> {
  const { signal } = query;
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    const skipped: { path: string; bytes: number }[] = [];
    let total = 0;
    let settled = false;

    let worker: Worker;
    try {
      worker = new Worker(options.worker, { workerData: data, stdout: true, stderr: true });
    } catch (error) {
      resolve({ ok: false, error: workerError(options.worker, error) });
      return;
    }
    // Settles only once the worker thread is gone: nothing of a search outlives its call.
    const end = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      options.timers.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      worker.terminate().then(settle, settle);
    };
    const finish = (outcome: GrepOutcome) => end(() => resolve(outcome));
    const ok = (extra: { countCapped?: boolean; note?: string } = {}): GrepOutcome => {
      const notes = [...(extra.note ? [extra.note] : []), ...skippedNote(skipped)];
      return { ok: true, lines, total, countCapped: extra.countCapped ?? false, ...(notes.length > 0 ? { notes } : {}) };
    };
    const onAbort = () => end(() => reject(abortReason(signal)));
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = options.timers.setTimeout(
      () => finish(ok({ note: deadlineNote(options.deadlineMs, total) })),
      options.deadlineMs,
    );

    worker.on('message', (message: JsSearchMessage) => {
      if (settled) return;
      switch (message.type) {
        case 'file':
          for (const line of message.lines) {
            total++;
            if (lines.length < query.limit) lines.push(line);
            if (total >= GREP_COUNT_CAP) return finish(ok({ countCapped: true }));
          }
          options.onProgress?.(total);
          return;
        case 'skipped':
          skipped.push({ path: message.path, bytes: message.bytes });
          return;
        case 'done':
          return finish(ok());
        case 'failed':
          return finish({ ok: false, error: `The JavaScript search failed: ${message.error}` });
      }
    });
    worker.on('error', (error) => finish({ ok: false, error: workerError(options.worker, error) }));
    worker.on('exit', (code) =>
      finish({ ok: false, error: `The JavaScript search stopped unexpectedly (worker exit code ${code}).` }),
    );
  });
}

function workerError(worker: URL, error: unknown): string {
  const file = worker.protocol === 'file:' ? fileURLToPath(worker) : worker.href;
  const code = (error as { code?: unknown }).code;
  const missing = code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND';
  const reason = missing ? `its worker script ${file} is missing` : `${(error as Error).message} (${file})`;
  return `The JavaScript search could not run: ${reason}; install ripgrep (rg) or reinstall outrider.`;
}

function deadlineNote(ms: number, found: number): string {
  const seconds = Math.round(ms / 100) / 10;
  const so = found > 0 ? `; the ${found} result(s) above are those found until then` : '';
  return `the search was stopped after ${seconds} s${so}. A pattern with nested repetition such as (a+)+ can run for ever in the JavaScript search: simplify it, or narrow path or glob (installing ripgrep avoids this).`;
}

const SKIPPED_SHOWN = 5;

function skippedNote(skipped: { path: string; bytes: number }[]): string[] {
  if (skipped.length === 0) return [];
  const limit = `${MAX_FILE_BYTES / 1024 / 1024} MB`;
  const names = skipped.slice(0, SKIPPED_SHOWN).map((s) => `${s.path} (${Math.round(s.bytes / 1024 / 1024)} MB)`);
  const more = skipped.length > SKIPPED_SHOWN ? ` and ${skipped.length - SKIPPED_SHOWN} more` : '';
  const count = skipped.length === 1 ? '1 file' : `${skipped.length} files`;
  return [
    `${count} larger than ${limit} not searched (the JavaScript search skips them; ripgrep does not): ${names.join(', ')}${more}.`,
  ];
}

/** Why the search stopped, as an Error (an abort's reason may be any value). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('the search was stopped');
}
