import { compileGlob } from './glob-pattern.js';

/** One line of a .gitignore file, compiled. */
export interface IgnoreRule {
  /** Directory of the .gitignore, relative to the walk root (`''` for the root itself). */
  base: string;
  regex: RegExp;
  negate: boolean;
  /** Written with a trailing `/`: matches directories only. */
  dirOnly: boolean;
  /** Holds a `/` before its end: matched against the path below `base`, not the bare name. */
  anchored: boolean;
}

/**
 * Parses .gitignore text: comments, blank lines, `!` negation, trailing `/` (directories only),
 * leading or inner `/` (anchored to the file's directory), `*`, `?`, `[…]` and `**`.
 */
export function parseGitignore(text: string, base = ''): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    // Trailing spaces are ignored unless escaped with a backslash.
    let line = raw.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith('/')) {
      dirOnly = true;
      line = line.replace(/\/+$/, '');
    }
    if (line === '') continue;
    const anchored = line.includes('/');
    line = line.replace(/^\/+/, '');
    rules.push({ base, regex: compileGlob(line, { braces: false }), negate, dirOnly, anchored });
  }
  return rules;
}

/**
 * Whether a path (relative to the walk root, `/`-separated) is ignored: the last matching rule wins.
 * Callers walk top-down and skip ignored directories, which is how git treats their contents.
 */
export function isIgnored(rules: readonly IgnoreRule[], relPath: string, isDir: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.dirOnly && !isDir) continue;
    let below = relPath;
    if (rule.base !== '') {
      if (!relPath.startsWith(`${rule.base}/`)) continue;
      below = relPath.slice(rule.base.length + 1);
    }
    const target = rule.anchored ? below : below.slice(below.lastIndexOf('/') + 1);
    if (rule.regex.test(target)) ignored = !rule.negate;
  }
  return ignored;
}
