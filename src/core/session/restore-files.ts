import { mkdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../platform/atomic-write.js';
import { displayPath, resolveWorkspacePath } from '../platform/paths.js';
import { formatSize } from '../platform/text.js';
import type { FileCheckpoint, FileCheckpoints } from './file-checkpoints.js';
import { readFileState, stateHash } from './file-state.js';

/** What putting files back did, file by file (paths as the user reads them: relative to the workspace root). */
export interface RestoreReport {
  /** Written back as they were. */
  restored: string[];
  /** Files the agent created, removed. */
  deleted: string[];
  /** Changed by someone else since the agent's last edit: put back all the same. */
  conflicts: string[];
  /** Left as they are, and why. */
  skipped: { path: string; why: string }[];
}

/**
 * Puts each file back as it was before the agent first changed it (deleting the ones it created).
 * Never through a symbolic link: a file whose path now leads elsewhere (a link put there since,
 * inside the workspace or out) is left alone, and so is a directory or device now in its place.
 * One file failing does not stop the others.
 */
export async function restoreFiles(changes: readonly FileCheckpoint[], checkpoints: FileCheckpoints): Promise<RestoreReport> {
  const report: RestoreReport = { restored: [], deleted: [], conflicts: [], skipped: [] };
  const { workspace } = checkpoints;
  const never = new AbortController().signal;
  for (const change of changes) {
    const shown = displayPath(workspace, change.path);
    const skip = (why: string) => report.skipped.push({ path: shown, why });
    const { before } = change;
    if ('tooLarge' in before) {
      skip(`it was ${formatSize(before.tooLarge)} when first changed, over the ${formatSize(checkpoints.maxBytes)} kept`);
      continue;
    }
    // The path as recorded was real: resolved again, it must still be the same file, in the workspace.
    const resolved = resolveWorkspacePath(workspace, change.path);
    if (!resolved.inside) {
      skip(resolved.loop ? 'its symbolic links now loop' : `it now leads outside the workspace (${resolved.real})`);
      continue;
    }
    if (resolved.real !== change.path) {
      skip(`a symbolic link now stands on its path (it leads to ${displayPath(workspace, resolved.real)})`);
      continue;
    }
    try {
      const current = await readFileState(change.path, checkpoints.maxBytes, never);
      if (current.kind === 'other') {
        skip(`it is now ${current.what}`);
        continue;
      }
      const now = stateHash(current);
      const { blob } = before;
      if (now === blob) continue;
      // Someone else changed it since the agent's last edit (or the last restore): put back all the same, and named.
      const expected = checkpoints.expected(change.path);
      const conflict = () => expected !== undefined && now !== expected && report.conflicts.push(shown);
      if (blob === null) {
        conflict();
        await unlink(change.path);
        checkpoints.restored(change.path, null);
        report.deleted.push(shown);
        continue;
      }
      const bytes = checkpoints.blob(blob);
      if (!bytes) {
        skip(`its saved copy is missing or damaged (${path.join(checkpoints.dir, 'blobs', blob)})`);
        continue;
      }
      conflict();
      await mkdir(path.dirname(change.path), { recursive: true });
      // A file that is gone gets its mode back; one still there keeps its own (writeFileAtomic).
      await writeFileAtomic(
        change.path,
        bytes,
        current.kind === 'absent' && before.mode !== undefined ? { mode: before.mode } : {},
      );
      checkpoints.restored(change.path, blob);
      report.restored.push(shown);
    } catch (error) {
      skip(`it could not be written back: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return report;
}
