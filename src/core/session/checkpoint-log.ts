/**
 * A session's checkpoint log (`checkpoints/log.jsonl` in its folder): what the agent's file
 * edits replaced, in the order things happened, so `/rewind` can put files back, in this run
 * or a resumed one. One JSON record a line, each one synchronous append: a crash
 * loses at most the line being written, and a line cut short is skipped when read back.
 */
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { isMissing } from '../platform/fs-errors.js';

/** One line of the log. Paths are real, absolute paths in the workspace; hashes are SHA-256, hex. */
export type CheckpointRecord =
  /** Prompt `n` joined the history; `hash`: its text's, to find it again in a resumed history. */
  | { type: 'prompt'; n: number; hash: string; at: string }
  /** `path` before its first change during prompt `n`: its bytes' blob, or null when there was no file. */
  | { type: 'before'; n: number; path: string; blob: string | null; mode?: number }
  /** `path` changed during prompt `n` while larger than the bound: no copy was kept. */
  | { type: 'too-large'; n: number; path: string; size: number }
  /** What an edit or a restore left at `path`: its content's hash (`stat:` for a file too large to hash), null for none. */
  | { type: 'after'; path: string; hash: string | null }
  /** The conversation went back to before prompt `n`: it and every later prompt left the history. */
  | { type: 'rewind'; n: number };

/** The records of a log as read back, and how many lines could not be read. */
export interface ReadLog {
  records: CheckpointRecord[];
  skipped: number;
}

/** Reads a log; a missing one is empty. Lines that are not a record (a crash's cut line, a hand edit) are skipped. */
export function readCheckpointLog(file: string): ReadLog {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return { records: [], skipped: 0 };
    throw error;
  }
  const records: CheckpointRecord[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const record = parseRecord(line);
    if (record) records.push(record);
    else skipped++;
  }
  return { records, skipped };
}

/** Appends records to a log file (0600, in a 0700 folder), one synchronous append each. */
export class CheckpointLogWriter {
  private started = false;

  constructor(private readonly file: string) {}

  append(record: CheckpointRecord): void {
    let text = `${JSON.stringify(record)}\n`;
    if (!this.started) {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      // A line a crash cut short stays alone on its line, or this record would be glued to it.
      if (!endsWithNewline(this.file)) text = `\n${text}`;
      this.started = true;
    }
    appendFileSync(this.file, text, { mode: 0o600 });
  }
}

/** True for a missing or empty file, or one whose last byte is a newline. */
function endsWithNewline(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if (isMissing(error)) return true;
    throw error;
  }
  try {
    const { size } = fstatSync(fd);
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

const isHash = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isPath = (value: unknown): value is string => typeof value === 'string' && isAbsolute(value) && !value.includes('\0');

/** A line as a record, its fields checked: the log is read back after crashes and by other versions. */
function parseRecord(line: string): CheckpointRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  switch (r.type) {
    case 'prompt':
      return isCount(r.n) && isHash(r.hash)
        ? { type: 'prompt', n: r.n, hash: r.hash, at: typeof r.at === 'string' ? r.at : '' }
        : undefined;
    case 'before':
      if (!isCount(r.n) || !isPath(r.path) || !(r.blob === null || isHash(r.blob))) return undefined;
      return { type: 'before', n: r.n, path: r.path, blob: r.blob, ...(isCount(r.mode) ? { mode: r.mode & 0o7777 } : {}) };
    case 'too-large':
      return isCount(r.n) && isPath(r.path) && isCount(r.size)
        ? { type: 'too-large', n: r.n, path: r.path, size: r.size }
        : undefined;
    case 'after':
      return isPath(r.path) && (r.hash === null || typeof r.hash === 'string')
        ? { type: 'after', path: r.path, hash: r.hash }
        : undefined;
    case 'rewind':
      return isCount(r.n) ? { type: 'rewind', n: r.n } : undefined;
    default:
      return undefined;
  }
}
