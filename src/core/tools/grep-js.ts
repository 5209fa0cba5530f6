import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { GREP_COUNT_CAP, type GrepOutcome, type GrepQuery, cutMatchLine, globFilter } from './grep-query.js';
import { displayPath } from './paths.js';
import { toPosix, walkFiles } from './walk-files.js';

/** Larger files are skipped: reading them whole would cost more than any answer is worth. */
const MAX_FILE_BYTES = 20 * 1024 * 1024;
const BINARY_SNIFF = 8 * 1024;

/** The search rg would do, in JavaScript: the same files (ignore-rules.ts), binary files skipped. */
export async function searchWithJs(query: GrepQuery): Promise<GrepOutcome> {
  let regex: RegExp;
  try {
    regex = new RegExp(query.pattern, query.ignoreCase ? 'i' : '');
  } catch (error) {
    return { ok: false, error: `Invalid regex ${query.pattern}: ${(error as Error).message}` };
  }
  const lines: string[] = [];
  let total = 0;
  const add = (line: string): boolean => {
    total++;
    if (lines.length < query.limit) lines.push(line);
    return total < GREP_COUNT_CAP;
  };

  for await (const file of candidateFiles(query)) {
    const text = await readText(file);
    if (text === undefined) continue;
    const shown = displayPath(query.workspace, file);
    let count = 0;
    let more = true;
    const fileLines = text.split('\n');
    for (let i = 0; i < fileLines.length && more; i++) {
      if (!regex.test(fileLines[i])) continue;
      count++;
      if (query.mode === 'content') more = add(`${shown}:${i + 1}:${cutMatchLine(fileLines[i])}`);
      else if (query.mode === 'files_with_matches') break;
    }
    if (count > 0 && query.mode === 'files_with_matches') more = add(shown);
    if (count > 0 && query.mode === 'count') more = add(`${shown}:${count}`);
    if (!more) return { ok: true, lines, total, countCapped: true };
  }
  return { ok: true, lines, total, countCapped: false };
}

/** The target itself when it is a file; otherwise the walk below it, filtered by the glob. */
async function* candidateFiles(query: GrepQuery): AsyncGenerator<string> {
  if ((await stat(query.target)).isFile()) {
    yield query.target;
    return;
  }
  const filter = globFilter(query.glob);
  for await (const entry of walkFiles({ root: query.workspace.root, start: query.target, signal: query.signal })) {
    if (filter(toPosix(path.relative(query.target, entry.absolute)))) yield entry.absolute;
  }
}

/** The file's text, or undefined for binary, huge or unreadable files. */
async function readText(file: string): Promise<string | undefined> {
  try {
    if ((await stat(file)).size > MAX_FILE_BYTES) return undefined;
    const buffer = await readFile(file);
    if (buffer.subarray(0, BINARY_SNIFF).includes(0)) return undefined;
    return buffer.toString('utf8');
  } catch {
    return undefined;
  }
}
