/**
 * Opening a path a tool was given, or found, to read it: only a regular file is opened for its
 * content. A FIFO would hold the open (or the read) until some writer came, and a device such as
 * /dev/zero, /dev/random or a terminal never ends or waits for input: the turn would hang, or
 * fill memory, whatever the user did. Reads obey the turn's signal.
 */
import { type Stats, closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { untilAborted } from './until-aborted.js';
import { isMissing } from './fs-errors.js';

/**
 * O_NONBLOCK: should the path become a FIFO between the check and the open, the open returns at
 * once instead of waiting for a writer (it changes nothing for a regular file). O_NOCTTY: a
 * terminal opened this way never becomes outrider's controlling terminal.
 */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** Why a path was not opened: nothing there, a directory, or something that is not a regular file. */
export type NotOpened =
  | { ok: false; reason: 'missing' }
  | { ok: false; reason: 'directory' }
  /** `kind`: what it is, in words ("a FIFO (named pipe)"). */
  | { ok: false; reason: 'special'; kind: string };

/** What a path is when it is not a regular file, in words. */
export function specialKind(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** `shown is a FIFO (named pipe), not a regular file`: the start of a tool's refusal. */
export function notRegular(shown: string, kind: string): string {
  return `${shown} is ${kind}, not a regular file`;
}

/** What a stat says of a path a tool is about to open, or undefined when it is a regular file. */
export function refusalFor(info: Stats): NotOpened | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return { ok: false, reason: 'directory' };
  return { ok: false, reason: 'special', kind: specialKind(info) };
}

/**
 * Opens `file` (symlinks followed) for reading if it is a regular file. It is looked at first,
 * so a device is never opened (opening one can act); then what was opened is looked at again,
 * so whatever replaced the path in between is refused too. A stat or open stuck in the kernel
 * (a dead network mount) ends the call when `signal` aborts; a handle opened after that is closed.
 */
export async function openRegularFile(
  file: string,
  signal: AbortSignal,
): Promise<{ ok: true; handle: FileHandle; info: Stats } | NotOpened> {
  signal.throwIfAborted();
  let info: Stats;
  try {
    info = await untilAborted(stat(file), signal);
  } catch (error) {
    if (!signal.aborted && isMissing(error)) return { ok: false, reason: 'missing' };
    throw error;
  }
  const refused = refusalFor(info);
  if (refused) return refused;
  const opening = open(file, READ_FLAGS);
  let handle: FileHandle;
  try {
    handle = await untilAborted(opening, signal);
  } catch (error) {
    void opening.then(
      (late) => late.close().catch(() => {}),
      () => {},
    );
    if (!signal.aborted && isMissing(error)) return { ok: false, reason: 'missing' };
    throw error;
  }
  try {
    const opened = await untilAborted(handle.stat(), signal);
    const swapped = refusalFor(opened);
    if (swapped) {
      await handle.close();
      return swapped;
    }
    return { ok: true, handle, info: opened };
  } catch (error) {
    // A FileHandle closes once its operations are done: after an abort the stat may still be stuck.
    handle.close().catch(() => {});
    throw error;
  }
}

/**
 * A regular file's bytes, read whole, or why it was not read. An abort ends the read between
 * chunks, and ends the call at once even when a read is stuck in the kernel (its handle is
 * closed when that read returns).
 */
export async function readRegularFile(file: string, signal: AbortSignal): Promise<{ ok: true; bytes: Buffer } | NotOpened> {
  const opened = await openRegularFile(file, signal);
  if (!opened.ok) return opened;
  const { handle } = opened;
  const reading = handle.readFile({ signal });
  const closed = reading.then(
    () => handle.close(),
    () => handle.close(),
  );
  // Whoever waits no longer, the read's own end (an abort's rejection included) is handled here.
  closed.catch(() => {});
  const bytes = await untilAborted(reading, signal);
  await closed;
  return { ok: true, bytes };
}

/**
 * `readRegularFile` as UTF-8 text, undefined for anything not read (missing, not a regular file,
 * unreadable): for files outrider only consults, such as ignore files and git's small files.
 */
export async function readRegularText(file: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const read = await readRegularFile(file, signal ?? new AbortController().signal);
    return read.ok ? read.bytes.toString('utf8') : undefined;
  } catch (error) {
    if (signal?.aborted) throw error;
    return undefined;
  }
}

/**
 * A small regular file read synchronously (read_file's fast path, see read-file.ts): at most
 * `maxBytes`, else undefined so the caller reads it the other way. Refused like openRegularFile:
 * checked before the open, and what was opened checked again.
 */
export function readRegularFileNow(file: string, maxBytes: number): { ok: true; bytes: Buffer } | NotOpened | undefined {
  let info: Stats;
  try {
    info = statSync(file);
  } catch (error) {
    if (isMissing(error)) return { ok: false, reason: 'missing' };
    throw error;
  }
  const refused = refusalFor(info);
  if (refused) return refused;
  if (info.size > maxBytes) return undefined;
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch (error) {
    if (isMissing(error)) return { ok: false, reason: 'missing' };
    throw error;
  }
  try {
    const opened = fstatSync(fd);
    const swapped = refusalFor(opened);
    if (swapped) return swapped;
    if (opened.size > maxBytes) return undefined;
    // A size of 0 may be a file the kernel makes as it is read (/proc/cpuinfo): read to its end, within the bound.
    const buffer = Buffer.alloc(opened.size > 0 ? opened.size : maxBytes + 1);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, null);
      if (n === 0) break;
      read += n;
    }
    if (read > maxBytes) return undefined;
    return { ok: true, bytes: buffer.subarray(0, read) };
  } finally {
    closeSync(fd);
  }
}
