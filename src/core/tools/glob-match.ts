import path from 'node:path';
import picomatch from 'picomatch';

// The one glob dialect of the tools (glob's pattern, grep's file filter), by picomatch:
// `*`, `**`, `?`, `[a-z]`, `[!a-z]`, `{a,b}`, `{1..3}`, extglobs. `*` and `?` never cross a `/`.

/** Dotfiles match like any other name (the model asks for what it wants); `posix` reads `[!a]` as the shell does. */
function options(): picomatch.PicomatchOptions {
  return { dot: true, posix: true };
}

/** A test of relative `/`-separated paths against the glob, matched in full. */
export function globMatcher(pattern: string): (relPath: string) => boolean {
  return picomatch(pattern, options());
}

/** The leading directories of a pattern that hold no glob syntax: where a walk can start (`''` for none). */
export function literalDirectory(pattern: string): string {
  const { base, isGlob } = picomatch.scan(pattern, options());
  const directory = isGlob ? base : path.posix.dirname(base);
  // An escaped character (`a\*b`) is literal to the matcher but not a directory name to open.
  const segments = directory === '.' ? [] : directory.split('/');
  const escaped = segments.findIndex((segment) => segment.includes('\\'));
  return (escaped === -1 ? segments : segments.slice(0, escaped)).join('/');
}
