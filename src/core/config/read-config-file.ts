import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { errnoCode } from '../platform/fs-errors.js';

/** A configuration file that exists but cannot be used; `reason` completes "cannot read the … file: ". */
export class ConfigFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'ConfigFileError';
  }
}

/**
 * Reads a small configuration file as UTF-8; undefined when it does not exist. Anything
 * but a regular file is refused before a byte is read: a FIFO would block the start until
 * someone writes to it, a device (`/dev/zero`) would never end. The file is opened
 * non-blocking and checked through its descriptor, so nothing can be swapped in between
 * the check and the read. `what` names the file in errors ("settings file").
 */
export function readConfigFile(file: string, options: { maxBytes: number; what: string }): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new ConfigFileError(file, `cannot read the ${options.what}: ${describeOpenError(error)}`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      throw new ConfigFileError(file, `cannot read the ${options.what}: it is ${kindOf(stats)}, not a regular file`);
    if (stats.size > options.maxBytes) {
      throw new ConfigFileError(
        file,
        `the ${options.what} is ${formatBytes(stats.size)}; the limit is ${formatBytes(options.maxBytes)}`,
      );
    }
    // Read to the limit and one byte past it: a file growing while it is read is refused too.
    const buffer = Buffer.alloc(options.maxBytes + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > options.maxBytes) {
        throw new ConfigFileError(file, `the ${options.what} is over ${formatBytes(options.maxBytes)}, the limit`);
      }
    }
    return buffer.subarray(0, length).toString('utf8');
  } catch (error) {
    if (error instanceof ConfigFileError) throw error;
    throw new ConfigFileError(file, `cannot read the ${options.what}: ${describeOpenError(error)}`);
  } finally {
    closeSync(fd);
  }
}

/** "1 MB", "2.0 MB", "512 bytes": sizes as the error lines print them (MB = 1024 × 1024 bytes). */
export function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (Number.isInteger(mb)) return `${mb} MB`;
  if (bytes >= 100 * 1024) return `${mb.toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a file';
}

function describeOpenError(error: unknown): string {
  const code = errnoCode(error);
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory, not a regular file';
  if (code === 'ELOOP') return 'too many symbolic links';
  return error instanceof Error ? error.message : String(error);
}
