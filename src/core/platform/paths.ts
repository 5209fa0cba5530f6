import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** Where tools may act: the workspace root plus directories the user added with --add-dir. */
export interface Workspace {
  /** Absolute, real path of the project root. */
  root: string;
  /** Absolute, real paths the user allowed beyond the root. */
  extraDirs: string[];
}

/** A path a tool was asked to touch, resolved against the workspace. */
export interface ResolvedPath {
  /** What the model wrote. */
  requested: string;
  /** Absolute path, `..` folded, symlinks not followed. */
  absolute: string;
  /** Absolute path with every symlink followed, the last component and dangling links included. */
  real: string;
  /** True when the real path lies in the workspace root or an added directory. */
  inside: boolean;
  /** The path relative to each workspace directory that holds it, by its absolute and its real name. */
  relative: { absolute: string[]; real: string[] };
  /** Its links loop (or nest deeper than the system allows): it has no real path, and counts as outside. */
  loop?: true;
}

/** Builds a workspace from a root and added directories, following their symlinks. */
export function makeWorkspace(root: string, extraDirs: string[] = []): Workspace {
  return { root: realPathOf(path.resolve(root)), extraDirs: extraDirs.map((d) => realPathOf(path.resolve(root, d))) };
}

export function resolveWorkspacePath(workspace: Workspace, requested: string): ResolvedPath {
  const expanded = requested.startsWith('~/') ? path.join(process.env.HOME ?? '~', requested.slice(2)) : requested;
  const absolute = path.resolve(workspace.root, expanded);
  const dirs = [workspace.root, ...workspace.extraDirs];
  // The workspace's folders are real paths already (makeWorkspace): the walk starts at the one
  // that holds the path, not at /, which saves a stat per folder above it on every call.
  const followed = followLinks(
    absolute,
    dirs.find((dir) => isWithin(dir, absolute)),
  );
  const real = followed ?? absolute;
  const relativeIn = (p: string): string[] => dirs.filter((dir) => isWithin(dir, p)).map((dir) => path.relative(dir, p));
  const relative = { absolute: relativeIn(absolute), real: followed === undefined ? [] : relativeIn(real) };
  return {
    requested,
    absolute,
    real,
    inside: relative.real.length > 0,
    relative,
    ...(followed === undefined ? { loop: true } : {}),
  };
}

export function isWithin(dir: string, target: string): boolean {
  const rel = path.relative(dir, target);
  // `..cache/x` is inside; only `..` itself or `../…` leaves.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Links followed before giving up, as Linux does (MAXSYMLINKS). */
const MAX_LINKS = 40;

/**
 * The real path of `p`: every symlink followed, the last component and dangling links
 * included (a link to a file not yet created is judged by where the file would land), and
 * the part that does not exist appended. Undefined when the links loop. `realAncestor`, a
 * folder holding `p` whose path is known to be real, is where the walk starts.
 */
export function followLinks(p: string, realAncestor?: string): string | undefined {
  const start = realAncestor ?? path.parse(p).root;
  let done = start;
  // Components still to walk, next one last; a link's target is pushed in its place.
  const todo = components(realAncestor ? path.relative(realAncestor, p) : p.slice(start.length));
  let links = 0;
  for (let part = todo.pop(); part !== undefined; part = todo.pop()) {
    if (part === '.') continue;
    if (part === '..') {
      done = path.dirname(done);
      continue;
    }
    const next = path.join(done, part);
    let target: string;
    try {
      if (!lstatSync(next).isSymbolicLink()) {
        done = next;
        continue;
      }
      target = readlinkSync(next);
    } catch {
      // Nothing there (or not searchable): no link can lie below it, the rest is as written.
      return path.join(next, ...todo.reverse());
    }
    if (++links > MAX_LINKS) return undefined;
    const targetRoot = path.parse(target).root;
    if (targetRoot) done = targetRoot;
    todo.push(...components(target.slice(targetRoot.length)));
  }
  return done;
}

/** Path components in reverse order, for use as a stack. */
const components = (p: string): string[] => p.split(path.sep).filter(Boolean).reverse();

/** The real path of `p`, or `p` itself when its links loop. */
export function realPathOf(p: string): string {
  return followLinks(p) ?? p;
}

/** A path shown to the user and the model: relative to the root when inside it. */
export function displayPath(workspace: Workspace, absolute: string): string {
  return isWithin(workspace.root, absolute) ? path.relative(workspace.root, absolute) || '.' : absolute;
}
