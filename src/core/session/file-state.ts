import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { isMissing } from '../platform/fs-errors.js';
import { readRegularFile, specialKind } from '../platform/regular-file.js';
import { untilAborted } from '../platform/until-aborted.js';

/** What a path holds at one moment, as file checkpoints see it. */
export type FileState =
  | { kind: 'absent' }
  | { kind: 'file'; bytes: Buffer; hash: string; mode: number }
  /** Over the size bound: not read; `hash` stands for its size and modification time. */
  | { kind: 'large'; hash: string; size: number; mode: number }
  /** A directory, a symbolic link, a FIFO, a device: never recorded, never written over. */
  | { kind: 'other'; what: string };

/** SHA-256 of some bytes or text, hex. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The state's content hash: null for no file (a directory or a device has none). */
export function stateHash(state: FileState): string | null | undefined {
  if (state.kind === 'absent') return null;
  return state.kind === 'other' ? undefined : state.hash;
}

/**
 * Reads what `file` holds, without following a symbolic link at its end and without opening
 * anything but a regular file (a FIFO or a device would hang the read), reading no more than
 * `maxBytes`: a larger file is told by its size and modification time.
 */
export async function readFileState(file: string, maxBytes: number, signal: AbortSignal): Promise<FileState> {
  let info: Stats;
  try {
    info = await untilAborted(lstat(file), signal);
  } catch (error) {
    if (!signal.aborted && isMissing(error)) return { kind: 'absent' };
    throw error;
  }
  if (info.isSymbolicLink()) return { kind: 'other', what: 'a symbolic link' };
  if (info.isDirectory()) return { kind: 'other', what: 'a directory' };
  if (!info.isFile()) return { kind: 'other', what: specialKind(info) };
  const mode = info.mode & 0o7777;
  if (info.size > maxBytes) return { kind: 'large', hash: `stat:${info.size}:${info.mtimeMs}`, size: info.size, mode };
  const read = await readRegularFile(file, signal);
  if (!read.ok) return read.reason === 'missing' ? { kind: 'absent' } : { kind: 'other', what: 'not a regular file' };
  // It grew past the bound between the look and the read: kept as large, so a copy is never bigger than the bound.
  if (read.bytes.length > maxBytes)
    return { kind: 'large', hash: `stat:${read.bytes.length}:${info.mtimeMs}`, size: read.bytes.length, mode };
  return { kind: 'file', bytes: read.bytes, hash: sha256(read.bytes), mode };
}
