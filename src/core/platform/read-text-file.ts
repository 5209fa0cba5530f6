import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** A text file read up to a byte budget: its size on disk and whether the text was cut. */
export interface TextFileRead {
  text: string;
  /** Bytes on disk. */
  size: number;
  /** True when the file is larger than the budget and only its head was read. */
  cut: boolean;
}

/**
 * Reads the head of a regular file, at most `maxBytes` of it, as UTF-8 (a leading BOM
 * dropped, a character split by the cut dropped). Files found in a repository are not
 * trusted: a multi-gigabyte file costs no more than the budget, and a FIFO or device named
 * like a Markdown file is refused instead of blocking start-up. Throws the fs error, or an
 * Error saying what the path is when it is not a regular file.
 */
export function readTextFile(path: string, maxBytes: number): TextFileRead {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer (no effect on files).
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(stat.isDirectory() ? 'a folder, not a file' : 'not a regular file');
    const limit = Math.min(stat.size, maxBytes);
    const buffer = Buffer.alloc(limit);
    let read = 0;
    while (read < limit) {
      const n = readSync(fd, buffer, read, limit - read, read);
      if (n === 0) break;
      read += n;
    }
    const cut = stat.size > maxBytes;
    let bytes = buffer.subarray(0, read);
    if (cut) bytes = bytes.subarray(0, completeUtf8Length(bytes));
    return { text: bytes.toString('utf8').replace(/^\uFEFF/, ''), size: stat.size, cut };
  } finally {
    closeSync(fd);
  }
}

/** Length of `bytes` without a trailing, incomplete UTF-8 sequence. */
export function completeUtf8Length(bytes: Buffer): number {
  let start = bytes.length - 1;
  // Back up over continuation bytes (10xxxxxx) to the lead byte of the last character.
  while (start >= 0 && start > bytes.length - 4 && (bytes[start]! & 0xc0) === 0x80) start--;
  if (start < 0) return bytes.length;
  const lead = bytes[start]!;
  const needed = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + needed <= bytes.length ? bytes.length : start;
}
