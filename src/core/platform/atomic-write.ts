import { randomBytes } from 'node:crypto';
import { constants, renameSync, rmSync, writeFileSync } from 'node:fs';
import { access, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isMissing } from './fs-errors.js';

/**
 * Replaces `file` with `content` (text as UTF-8, or bytes): written to a temporary file in the
 * same folder, flushed, then renamed over it. A crash or kill -9 mid-write leaves the old file whole, and a hard
 * link to a file elsewhere is replaced, not written through. Keeps the mode (and the owner,
 * where allowed), unless `options.mode` is given: then the file has that mode from its first
 * byte on (a secret is never readable by others, even for a moment). `file` must be a real
 * path: a symlink there would itself be replaced.
 */
export async function writeFileAtomic(
  file: string,
  content: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  const existing = await stat(file).catch((error: unknown) => {
    if (isMissing(error)) return undefined;
    throw error;
  });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const mode = options.mode ?? (existing ? existing.mode & 0o7777 : undefined);
  // wx: never follow or reuse something already at the temporary name.
  const handle = await open(temp, 'wx', mode ?? 0o666);
  try {
    if (mode !== undefined) await handle.chmod(mode); // open's mode went through the umask
    await handle.writeFile(content); // text as UTF-8, bytes as they are
    if (existing) await handle.chown(existing.uid, existing.gid).catch(() => {});
    await handle.sync();
    await handle.close();
    await rename(temp, file);
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * writeFileAtomic for the session's own small records (logs, blobs), where the caller cannot
 * wait: a temporary file in the same folder with `mode` from its first byte, then renamed over
 * `file`. No flush: these are rewritten from memory if a crash loses them.
 */
export function writeFileAtomicSync(file: string, content: string | Uint8Array, options: { mode: number }): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, content, { mode: options.mode, flag: 'wx' });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Why `file` may not be replaced, or undefined when it may: replacing through rename would
 * otherwise overwrite a file its permissions protect, which writing in place never could.
 */
export async function notWritableReason(file: string, shown: string): Promise<string | undefined> {
  try {
    await access(file, constants.W_OK);
    return undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    if ((error as NodeJS.ErrnoException).code !== 'EACCES' && (error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
    const { mode } = await stat(file);
    return `${shown} is not writable (mode ${modeString(mode)}); change its permissions first.`;
  }
}

/** `0o644` → `rw-r--r--`. */
function modeString(mode: number): string {
  return [6, 3, 0].map((shift) => ['r', 'w', 'x'].map((c, i) => (mode & (1 << (shift + 2 - i)) ? c : '-')).join('')).join('');
}
