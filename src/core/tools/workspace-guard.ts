import type { ToolOutput, Workspace } from './define.js';
import { type ResolvedPath, resolveWorkspacePath } from './paths.js';

/**
 * Resolves a path a mutating tool is about to change; refuses it when its real location
 * (symlinks followed) lies outside the workspace root and the directories added with --add-dir.
 */
export function resolveWritablePath(
  workspace: Workspace,
  requested: string,
): { ok: true; path: ResolvedPath } | { ok: false; output: ToolOutput } {
  const resolved = resolveWorkspacePath(workspace, requested);
  if (resolved.inside) return { ok: true, path: resolved };
  const where = resolved.real === resolved.absolute ? resolved.absolute : `${resolved.absolute} → ${resolved.real}`;
  return {
    ok: false,
    output: {
      content: `${requested} is outside the workspace (${where}); start outrider with --add-dir <dir> to allow writing there.`,
      isError: true,
    },
  };
}
