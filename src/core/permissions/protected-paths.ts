import path from 'node:path';
import type { ResolvedPath } from '../platform/paths.js';

/**
 * Paths that make programs run when written: anything in a `.git` directory (config, hooks,
 * info/attributes, a submodule's config) and the project configuration outrider and Claude
 * read (`.outrider/`, `.claude/`, `.mcp.json`) at the top of each workspace directory. Pure: judged by
 * the names the path resolver found, its requested name and its real one, so neither a
 * symlink to `.git/config` nor a `.git` that is a symlink slips through.
 */
export function protectedReason(p: ResolvedPath): string | undefined {
  for (const [from, names] of [
    ['absolute', p.relative.absolute],
    ['real', p.relative.real],
  ] as const) {
    for (const name of names) {
      const parts = name.split(path.sep).map(normalizeName);
      const shown =
        from === 'real' && !p.relative.absolute.includes(name) ? `${p.requested} (really ${toSlashes(name)})` : toSlashes(name);
      if (parts.includes('.git')) {
        return `${shown} is inside .git: git's config and hooks there make git run programs, so writing it always asks`;
      }
      if (PROJECT_CONFIG_DIRS.has(parts[0])) {
        return `${shown} is project configuration (settings, hooks, agents) that can make programs run, so writing it always asks`;
      }
      if (parts.length === 1 && PROJECT_CONFIG_FILES.has(parts[0])) {
        return `${shown} names MCP servers, programs outrider and Claude start in this folder, so writing it always asks`;
      }
    }
  }
  return undefined;
}

const PROJECT_CONFIG_DIRS = new Set(['.outrider', '.claude']);
/** Files at the top of a workspace directory that start programs: `.mcp.json`'s servers (trust still guards them too). */
const PROJECT_CONFIG_FILES = new Set(['.mcp.json']);

/** Code points macOS ignores in file names (HFS+ once treated `.g\u200cit` as `.git`). */
const IGNORABLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\ufeff]/g;

/**
 * One path component as a case-insensitive, normalizing file system would compare it:
 * NFC, lower case, ignorable code points dropped, trailing dots and spaces dropped (Windows).
 */
function normalizeName(name: string): string {
  return name
    .normalize('NFC')
    .replace(IGNORABLE, '')
    .toLowerCase()
    .replace(/[. ]+$/, '');
}

const toSlashes = (p: string): string => p.split(path.sep).join('/');
