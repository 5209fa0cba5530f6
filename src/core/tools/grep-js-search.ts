/**
 * The search rg would do, in JavaScript: the same files (ignore-rules.ts), binary files skipped.
 * It runs inside the worker (grep-worker.ts), never on the main thread: a regex such as
 * `(a+)+$` can backtrack for hours, and only terminating the worker stops it.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Workspace } from './define.js';
import { GREP_COUNT_CAP, type GrepMode, cutMatchLine, globFilter } from './grep-query.js';
import { displayPath } from '../platform/paths.js';
import { openRegularFile } from '../platform/regular-file.js';
import { toPosix, walkFiles } from './walk-files.js';

/** Larger files are skipped: reading them whole would cost more than any answer is worth. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
const BINARY_SNIFF = 8 * 1024;

/** A query as it crosses into the worker: plain data, no signal. */
export interface JsSearchQuery {
  pattern: string;
  ignoreCase: boolean;
  glob?: string;
  mode: GrepMode;
  target: string;
  workspace: Workspace;
}

/** What the worker posts: one file's result lines, a file too large to read, the end. */
export type JsSearchMessage =
  | { type: 'file'; lines: string[] }
  | { type: 'skipped'; path: string; bytes: number }
  | { type: 'done' }
  | { type: 'failed'; error: string };

/** Searches every candidate file and reports each one's results as it goes. */
export async function searchFiles(query: JsSearchQuery, post: (message: JsSearchMessage) => void): Promise<void> {
  const regex = new RegExp(query.pattern, query.ignoreCase ? 'i' : '');
  for await (const file of candidateFiles(query)) {
    const shown = displayPath(query.workspace, file);
    const text = await readText(file, (bytes) => post({ type: 'skipped', path: shown, bytes }));
    if (text === undefined) continue;
    const lines = matchLines(text, regex, query.mode, shown);
    if (lines.length > 0) post({ type: 'file', lines });
  }
  post({ type: 'done' });
}

/** One file's result lines in the query's mode (at most the count cap of them). */
function matchLines(text: string, regex: RegExp, mode: GrepMode, shown: string): string[] {
  const out: string[] = [];
  let count = 0;
  const fileLines = text.split('\n');
  for (let i = 0; i < fileLines.length && out.length < GREP_COUNT_CAP; i++) {
    if (!regex.test(fileLines[i])) continue;
    count++;
    if (mode === 'content') out.push(`${shown}:${i + 1}:${cutMatchLine(fileLines[i])}`);
    else if (mode === 'files_with_matches') break;
  }
  if (count === 0) return out;
  if (mode === 'files_with_matches') return [shown];
  if (mode === 'count') return [`${shown}:${count}`];
  return out;
}

/** The target itself when it is a file; otherwise the walk below it, filtered by the glob. */
async function* candidateFiles(query: JsSearchQuery): AsyncGenerator<string> {
  if ((await stat(query.target)).isFile()) {
    yield query.target;
    return;
  }
  const filter = globFilter(query.glob);
  // Stopping is the worker's termination, so the walk itself needs no signal.
  const signal = new AbortController().signal;
  for await (const entry of walkFiles({ root: query.workspace.root, start: query.target, signal })) {
    if (filter(toPosix(path.relative(query.target, entry.absolute)))) yield entry.absolute;
  }
}

/**
 * The file's text, or undefined for binary, huge (reported), unreadable or not regular files (a
 * FIFO put where a file was found would wait for a writer; the worker has no signal, only its end).
 */
async function readText(file: string, onTooLarge: (bytes: number) => void): Promise<string | undefined> {
  try {
    const opened = await openRegularFile(file, new AbortController().signal);
    if (!opened.ok) return undefined;
    try {
      if (opened.info.size > MAX_FILE_BYTES) {
        onTooLarge(opened.info.size);
        return undefined;
      }
      const buffer = await opened.handle.readFile();
      if (buffer.subarray(0, BINARY_SNIFF).includes(0)) return undefined;
      return buffer.toString('utf8');
    } finally {
      await opened.handle.close();
    }
  } catch {
    return undefined;
  }
}
