import type { Workspace } from './define.js';
import { globMatcher } from './glob-match.js';

export type GrepMode = 'content' | 'files_with_matches' | 'count';

/** One search, as both the ripgrep and the JavaScript back ends receive it. */
export interface GrepQuery {
  pattern: string;
  ignoreCase: boolean;
  /** Filters files: a bare name pattern matches the file name, one with `/` the path below `target`; `!` excludes. */
  glob?: string;
  mode: GrepMode;
  /** Absolute path of the file or directory searched. */
  target: string;
  workspace: Workspace;
  /** Result lines kept; the rest are only counted. */
  limit: number;
  signal: AbortSignal;
}

/**
 * Result lines (`path:line:text`, `path`, or `path:count`, paths relative to the workspace root),
 * how many there were in all, and whether counting stopped early.
 */
export type GrepOutcome =
  | {
      ok: true;
      lines: string[];
      total: number;
      countCapped: boolean;
      /** rg's first complaint when it exited with an error but found matches. */
      warning?: string;
      /** What the model should know about the search itself (stopped early, files left out). */
      notes?: string[];
    }
  | { ok: false; error: string };

/** Results kept for the model. */
export const GREP_RESULT_LIMIT = 200;
/** Past this many results the search stops: the count shown becomes a lower bound. */
export const GREP_COUNT_CAP = 10_000;
/** A matching line longer than this is cut: minified files would flood the context. */
export const GREP_LINE_MAX = 500;

export function cutMatchLine(line: string): string {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  return text.length <= GREP_LINE_MAX ? text : `${text.slice(0, GREP_LINE_MAX)}… [${text.length} characters]`;
}

/**
 * The `glob` filter as rg's --glob reads it: a pattern without `/` matches the file name, one
 * with `/` the path below the search target; a leading `!` excludes what it matches.
 */
export function globFilter(glob: string | undefined): (relPath: string) => boolean {
  if (!glob) return () => true;
  const exclude = glob.startsWith('!');
  const pattern = exclude ? glob.slice(1) : glob;
  const matches = globMatcher(pattern.replace(/^\//, ''));
  const byName = !pattern.includes('/');
  return (relPath) => {
    const matched = matches(byName ? relPath.slice(relPath.lastIndexOf('/') + 1) : relPath);
    return exclude ? !matched : matched;
  };
}
