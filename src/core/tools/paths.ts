import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Workspace } from './define.js';

/** A path a tool was asked to touch, resolved against the workspace. */
export interface ResolvedPath {
  /** What the model wrote. */
  requested: string;
  /** Absolute path, `..` folded, symlinks not followed. */
  absolute: string;
  /** Absolute path with every existing symlink followed. */
  real: string;
  /** True when the real path lies in the workspace root or an added directory. */
  inside: boolean;
}

/** Builds a workspace from a root and added directories, following their symlinks. */
export function makeWorkspace(root: string, extraDirs: string[] = []): Workspace {
  return { root: realPathOf(path.resolve(root)), extraDirs: extraDirs.map((d) => realPathOf(path.resolve(root, d))) };
}

export function resolveWorkspacePath(workspace: Workspace, requested: string): ResolvedPath {
  const expanded = requested.startsWith('~/') ? path.join(process.env.HOME ?? '~', requested.slice(2)) : requested;
  const absolute = path.resolve(workspace.root, expanded);
  const real = realPathOf(absolute);
  const inside = [workspace.root, ...workspace.extraDirs].some((dir) => isWithin(dir, real));
  return { requested, absolute, real, inside };
}

export function isWithin(dir: string, target: string): boolean {
  const rel = path.relative(dir, target);
  // `..cache/x` is inside; only `..` itself or `../…` leaves.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The real path of `p`: symlinks followed for the part that exists, the rest appended,
 * so a file about to be created under a symlinked directory is judged by where it lands.
 */
export function realPathOf(p: string): string {
  const missing: string[] = [];
  let current = p;
  for (;;) {
    try {
      return path.join(realpathSync(current), ...missing.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return p;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/** A path shown to the user and the model: relative to the root when inside it. */
export function displayPath(workspace: Workspace, absolute: string): string {
  return isWithin(workspace.root, absolute) ? path.relative(workspace.root, absolute) || '.' : absolute;
}
