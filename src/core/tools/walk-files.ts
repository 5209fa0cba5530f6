import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { type IgnoreRule, isIgnored, parseGitignore } from './gitignore.js';
import { isWithin } from './paths.js';

export interface WalkOptions {
  /** Directory whose .gitignore (and those below it) apply; `rel` paths are relative to it. */
  root: string;
  /** Where the walk starts: `root` or a directory inside it. Never itself filtered. */
  start: string;
  signal: AbortSignal;
  /** Directory names never entered below `start`. */
  skipDirs?: ReadonlySet<string>;
}

/** A file found by the walk. */
export interface WalkEntry {
  absolute: string;
  /** Relative to the walk root, `/`-separated. */
  rel: string;
}

const DEFAULT_SKIP: ReadonlySet<string> = new Set(['.git']);

/**
 * Yields the files under `start` in name order, honouring .gitignore files from `root` down,
 * never entering `skipDirs`. Symlinked directories are not followed (they can loop).
 */
export async function* walkFiles(options: WalkOptions): AsyncGenerator<WalkEntry> {
  const root = isWithin(options.root, options.start) ? options.root : options.start;
  const skipDirs = options.skipDirs ?? DEFAULT_SKIP;
  // The .gitignore files of the directories above `start` still apply inside it.
  let rules: IgnoreRule[] = [];
  const relStart = toPosix(path.relative(root, options.start));
  const segments = relStart === '' ? [] : relStart.split('/');
  for (let i = 0; i < segments.length; i++) {
    const rel = segments.slice(0, i).join('/');
    rules = rules.concat(await loadRules(path.join(root, rel), rel));
  }
  yield* walkDir(options.start, relStart, rules, skipDirs, options.signal);
}

async function* walkDir(
  dir: string,
  rel: string,
  inherited: IgnoreRule[],
  skipDirs: ReadonlySet<string>,
  signal: AbortSignal,
): AsyncGenerator<WalkEntry> {
  signal.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return; // unreadable directories are skipped, as rg does
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rules = entries.some((e) => e.name === '.gitignore' && e.isFile())
    ? inherited.concat(await loadRules(dir, rel))
    : inherited;
  for (const entry of entries) {
    const absolute = path.join(dir, entry.name);
    const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      const target = await stat(absolute).catch(() => undefined);
      isFile = target?.isFile() ?? false;
      isDir = false;
    }
    if (isDir) {
      if (skipDirs.has(entry.name) || isIgnored(rules, childRel, true)) continue;
      yield* walkDir(absolute, childRel, rules, skipDirs, signal);
    } else if (isFile && !isIgnored(rules, childRel, false)) {
      yield { absolute, rel: childRel };
    }
  }
}

async function loadRules(dir: string, rel: string): Promise<IgnoreRule[]> {
  const text = await readFile(path.join(dir, '.gitignore'), 'utf8').catch(() => '');
  return parseGitignore(text, rel);
}

export function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}
