import { stat } from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import { repositoryExcludeFile, userExcludesFile } from './git-excludes.js';
import { isWithin } from '../platform/paths.js';
import { readRegularText } from '../platform/regular-file.js';

/*
 * Which files exist for glob, list_dir and grep (both the JavaScript search and ripgrep, whose
 * flags in grep-rg.ts follow this list). It is ripgrep's own rule set, with hidden files shown
 * and rg's default of honouring .gitignore inside repositories only, because that part reads the
 * same in rg 13 to 15 (with --no-require-git they disagree on which .gitignore files reach where):
 *
 * 1. `.rgignore`, then `.ignore`, then `.gitignore`, then the repository's `.git/info/exclude`,
 *    then the user's git excludes file: the first that matches a path decides. Among files of
 *    one kind the deepest directory's comes first; within a file the last matching line wins,
 *    and `!` takes a path back.
 * 2. `.gitignore` files and `info/exclude` apply inside a git repository only (a directory
 *    holding `.git`, a folder or a worktree's file), from its root down, as git reads them.
 *    `.rgignore` and `.ignore` (ripgrep's and fd's files) apply from every directory above.
 * 3. The user's excludes file applies everywhere, matched from the workspace root.
 * 4. Hidden files are seen; `.git` is never entered; symbolic links met on the way are not
 *    followed. A path named explicitly (grep's `path`, list_dir's directory) is searched even
 *    when ignored; the rules still apply below it.
 *
 * The `ignore` package matches one file's lines the way git does.
 */

/** The ignore files found in one directory. */
interface Level {
  dir: string;
  /** Holds `.git`: .gitignore files above it do not reach in. */
  isRepositoryRoot: boolean;
  rgignore?: Matcher;
  ignore?: Matcher;
  gitignore?: Matcher;
  exclude?: Matcher;
}

/** One ignore file's rules, matched against paths relative to `base`. */
interface Matcher {
  base: string;
  rules: Ignore;
}

type Ignore = ReturnType<typeof ignore>;

/** The names that make a directory's level: its ignore files, and `.git` for a repository root. */
const RULE_FILE_NAMES: readonly string[] = Object.freeze(['.rgignore', '.ignore', '.gitignore', '.git']);
type Verdict = 'ignored' | 'kept' | undefined;

/** The rules that apply inside one directory, during one walk or listing. */
export class IgnoreScope {
  /** Levels whose .gitignore and info/exclude apply here: up to the repository root, none outside one. */
  private readonly gitLevels: readonly Level[];

  private constructor(
    readonly dir: string,
    /** Deepest first. */
    private readonly levels: readonly Level[],
    private readonly user: Matcher | undefined,
  ) {
    const root = levels.findIndex((level) => level.isRepositoryRoot);
    this.gitLevels = root === -1 ? [] : levels.slice(0, root + 1);
  }

  /**
   * The scope inside a directory named explicitly: the ignore files of every directory above
   * it are read, and the directory itself is not filtered. `workspaceRoot` anchors the user's
   * excludes file; `env` locates it.
   */
  static async forDirectory(dir: string, options: { workspaceRoot: string; env?: NodeJS.ProcessEnv }): Promise<IgnoreScope> {
    const base = isWithin(options.workspaceRoot, dir) ? options.workspaceRoot : dir;
    const userFile = await userExcludesFile(options.env ?? process.env, base);
    const chain: string[] = [];
    for (let current = path.resolve(dir); ; current = path.dirname(current)) {
      chain.unshift(current);
      if (path.dirname(current) === current) break;
    }
    let scope = new IgnoreScope(chain[0], [await readLevel(chain[0])], userFile && matcher(base, userFile.text));
    for (const next of chain.slice(1)) scope = await scope.enter(path.basename(next));
    return scope;
  }

  /** Whether the entry `name` of this directory is ignored. */
  ignores(name: string, isDir: boolean): boolean {
    const target = path.join(this.dir, name);
    const test = (m: Matcher | undefined) => (m ? verdict(m, target, isDir) : undefined);
    const decided =
      first(this.levels, (level) => test(level.rgignore)) ??
      first(this.levels, (level) => test(level.ignore)) ??
      first(this.gitLevels, (level) => test(level.gitignore)) ??
      first(this.gitLevels, (level) => test(level.exclude)) ??
      test(this.user);
    return decided === 'ignored';
  }

  /**
   * The scope inside the subdirectory `name`, which the caller has found not ignored or was
   * told to search. `names`, the subdirectory's entries when the caller has read them, spares
   * looking for ignore files that are not there.
   */
  async enter(name: string, names?: ReadonlySet<string>): Promise<IgnoreScope> {
    const dir = path.join(this.dir, name);
    // `ignore` judges a path by its parent directories too, per file. A directory entered here
    // is not ignored whatever one file says of it (a deeper file took it back, or it was named
    // explicitly, as rg and git see it), so every file that would ignore it is told so.
    for (const m of this.matchers()) {
      const rel = relativeTo(m.base, dir);
      if (rel !== undefined && m.rules.test(`${rel}/`).ignored) m.rules.add(`!/${escapePattern(rel)}/`);
    }
    return new IgnoreScope(dir, [await readLevel(dir, names), ...this.levels], this.user);
  }

  private *matchers(): Generator<Matcher> {
    for (const level of this.levels) {
      for (const m of [level.rgignore, level.ignore, level.gitignore, level.exclude]) if (m) yield m;
    }
    if (this.user) yield this.user;
  }
}

async function readLevel(dir: string, names?: ReadonlySet<string>): Promise<Level> {
  const rulesIn = async (file: string | undefined) => {
    const text = file === undefined ? undefined : await readRegularText(file);
    return text ? matcher(dir, text) : undefined;
  };
  const own = (name: string) => (names && !names.has(name) ? undefined : path.join(dir, name));
  // Most directories hold no ignore file: no reads, no waits.
  if (names && !RULE_FILE_NAMES.some((name) => names.has(name))) return { dir, isRepositoryRoot: false };
  const isRepositoryRoot = names
    ? names.has('.git')
    : await stat(path.join(dir, '.git')).then(
        () => true,
        () => false,
      );
  return {
    dir,
    isRepositoryRoot,
    rgignore: await rulesIn(own('.rgignore')),
    ignore: await rulesIn(own('.ignore')),
    gitignore: await rulesIn(own('.gitignore')),
    exclude: isRepositoryRoot ? await rulesIn(await repositoryExcludeFile(dir)) : undefined,
  };
}

function matcher(base: string, text: string): Matcher {
  // Case-sensitive, as git on Linux and ripgrep everywhere.
  return { base, rules: ignore({ ignorecase: false }).add(text) };
}

function verdict(m: Matcher, target: string, isDir: boolean): Verdict {
  const rel = relativeTo(m.base, target);
  if (rel === undefined) return undefined;
  const result = m.rules.test(isDir ? `${rel}/` : rel);
  return result.ignored ? 'ignored' : result.unignored ? 'kept' : undefined;
}

function first(levels: readonly Level[], test: (level: Level) => Verdict): Verdict {
  for (const level of levels) {
    const result = test(level);
    if (result) return result;
  }
  return undefined;
}

/**
 * `target` below `base` as a `/` path, or undefined when it is not below it. Both are absolute
 * and normalized (built by path.join), so a prefix test does what path.relative would, at a
 * fraction of the cost: this runs for every entry a walk meets, once per ignore file.
 */
function relativeTo(base: string, target: string): string | undefined {
  const prefix = base.endsWith(path.sep) ? base : `${base}${path.sep}`;
  if (target.length <= prefix.length || !target.startsWith(prefix)) return undefined;
  const rel = target.slice(prefix.length);
  return path.sep === '/' ? rel : rel.split(path.sep).join('/');
}

/** A literal path as a gitignore pattern: the characters globs give meaning to, escaped. */
function escapePattern(rel: string): string {
  return rel.replace(/[\\*?[\]]/g, (ch) => `\\${ch}`).replace(/ $/, '\\ ');
}
