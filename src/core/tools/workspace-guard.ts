import { type ResolvedPath, resolveWorkspacePath } from '../platform/paths.js';
import type { ToolOutput, Workspace } from './define.js';

/**
 * Resolves a path a mutating tool is about to change; refuses it when its real location
 * (every symlink followed, the last one and dangling ones included) lies outside the workspace
 * root and the directories added with --add-dir. Tools write to `path.real`, never through a link.
 */
export function resolveWritablePath(
  workspace: Workspace,
  requested: string,
): { ok: true; path: ResolvedPath } | { ok: false; output: ToolOutput } {
  const resolved = resolveWorkspacePath(workspace, requested);
  if (resolved.inside) return { ok: true, path: resolved };
  if (resolved.loop) {
    return {
      ok: false,
      output: { content: `${requested} has no real path: its symbolic links form a loop; fix or remove them.`, isError: true },
    };
  }
  const where = resolved.real === resolved.absolute ? resolved.absolute : `${resolved.absolute} → ${resolved.real}`;
  return {
    ok: false,
    output: {
      content: `${requested} is outside the workspace (${where}); start outrider with --add-dir <dir> to allow writing there.`,
      isError: true,
    },
  };
}
