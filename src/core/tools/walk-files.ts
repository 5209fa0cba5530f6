import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { IgnoreScope } from './ignore-rules.js';

export interface WalkOptions {
  /** The workspace root: the user's git excludes file is matched from here. */
  root: string;
  /** Where the walk starts. Never itself filtered (see ignore-rules.ts for what is). */
  start: string;
  signal: AbortSignal;
  /** Names never entered or listed below `start`; default `.git` (a folder, or a worktree's file). */
  skipDirs?: ReadonlySet<string>;
  /** Locates the user's git excludes file (HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL); default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** A file found by the walk. */
export interface WalkEntry {
  absolute: string;
}

const DEFAULT_SKIP: ReadonlySet<string> = new Set(['.git']);

/**
 * Yields the files under `start` in name order that the ignore rules leave (ignore-rules.ts),
 * never entering `skipDirs`. Symbolic links are skipped, as rg does without
 * `--follow`: a linked directory can loop or lead out of the workspace.
 */
export async function* walkFiles(options: WalkOptions): AsyncGenerator<WalkEntry> {
  const skipDirs = options.skipDirs ?? DEFAULT_SKIP;
  const context = { skipDirs, signal: options.signal };
  const scope = () => IgnoreScope.forDirectory(options.start, { workspaceRoot: options.root, env: options.env });
  yield* walkDir(options.start, scope, context);
}

async function* walkDir(
  dir: string,
  scopeOf: (names: ReadonlySet<string>) => Promise<IgnoreScope>,
  context: { skipDirs: ReadonlySet<string>; signal: AbortSignal },
): AsyncGenerator<WalkEntry> {
  context.signal.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // unreadable directories are skipped, as rg does
  }
  const scope = await scopeOf(new Set(entries.map((entry) => entry.name)));
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (context.skipDirs.has(entry.name)) continue;
    const absolute = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (scope.ignores(entry.name, true)) continue;
      yield* walkDir(absolute, (names) => scope.enter(entry.name, names), context);
    } else if (entry.isFile() && !scope.ignores(entry.name, false)) {
      yield { absolute };
    }
  }
}

export function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}
