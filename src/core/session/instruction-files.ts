import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { formatSize } from '../platform/text.js';
import { readTextFile } from '../platform/read-text-file.js';
import { isWithin } from '../platform/paths.js';
import { importTokens, withoutTrailingPunctuation } from './instruction-imports.js';

/** Where instruction files are looked for. */
export interface InstructionSources {
  /** The working directory: files are read from the repository root down to it. */
  cwd: string;
  /** outrider's own folder (`~/.outrider` or OUTRIDER_HOME): its AGENTS.md is the user's. */
  outriderHome: string;
  /** The user's home folder (the session's HOME): `~/.claude/CLAUDE.md`, `@~/…` imports. */
  home?: string;
}

/** One instruction file as the prompt includes it. */
export interface InstructionFile {
  path: string;
  content: string;
  /** The file whose `@path` brought this one in. */
  importedBy?: string;
}

/** What `/memory` shows of one file: where it is, how much of it the prompt holds, and why not all. */
export interface InstructionFileInfo {
  path: string;
  scope: 'user' | 'project';
  /** Bytes on disk. */
  size: number;
  /** Bytes in the prompt: less than `size` when the file was cut or left out. */
  included: number;
  importedBy?: string;
  /** Cuts, imports refused, an empty file. */
  notes: string[];
}

export interface InstructionLimits {
  /** Bytes of one file. */
  perFileBytes: number;
  /** Bytes of all files together. */
  totalBytes: number;
  /** Levels of `@path` imports below a file that was found, not imported. */
  importDepth: number;
}

export const INSTRUCTION_LIMITS: Readonly<InstructionLimits> = Object.freeze({
  perFileBytes: 32 * 1024,
  totalBytes: 64 * 1024,
  importDepth: 5,
});

/** Files left out for the budget that still get a line in the prompt saying so. */
const MAX_LEFT_OUT_LINES = 10;

export interface LoadedInstructions {
  /**
   * In prompt order: the user's files, then each level's (AGENTS.md, CLAUDE.md, CLAUDE.local.md)
   * from the repository root down to the working directory, each followed by its imports.
   */
  files: InstructionFile[];
  info: InstructionFileInfo[];
  /** Lines for the user at start: imports refused, files left out. */
  warnings: string[];
}

/** The nearest folder at or above `cwd` holding `.git` (a folder, or a worktree's file). */
export function repositoryRoot(cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * Reads the instruction files of a session, once, at its start. The repository's files are
 * not trusted: neither they nor their imports may reach outside the repository (symbolic links
 * followed), a user file's imports stay in the user's home folder, and size is bounded per
 * file and in all.
 */
export function loadInstructionFiles(
  sources: InstructionSources,
  limits: InstructionLimits = INSTRUCTION_LIMITS,
): LoadedInstructions {
  const out: LoadedInstructions = { files: [], info: [], warnings: [] };
  const seen = new Set<string>();
  const leftOut: string[] = [];
  let used = 0;
  const root = repositoryRoot(sources.cwd) ?? path.resolve(sources.cwd);
  const userRoots = [sources.outriderHome, ...(sources.home ? [sources.home] : [])].map(realOr);
  const projectRoots = [realOr(root)];

  const visit = (file: string, scope: 'user' | 'project', chain: string[], token?: string): void => {
    const real = realOr(file);
    const importer = chain.at(-1);
    if (seen.has(real)) return;
    const roots = scope === 'user' ? userRoots : projectRoots;
    // The user's own file may live anywhere; a repository's file, and every import, only inside.
    const info: InstructionFileInfo = {
      path: file,
      scope,
      size: 0,
      included: 0,
      notes: [],
      ...(importer ? { importedBy: importer } : {}),
    };
    if ((scope === 'project' || importer !== undefined) && !roots.some((dir) => isWithin(dir, real))) {
      const where = scope === 'user' ? 'your home folder' : 'the repository';
      const note = `not read: it leads outside ${where} (to ${real})`;
      if (importer === undefined) {
        out.info.push({ ...info, notes: [note] });
        out.warnings.push(`${file}: ${note}`);
      } else refuse(importer, `@${token ?? file} is ${note}`);
      return;
    }
    seen.add(real);
    out.info.push(info);
    const remaining = limits.totalBytes - used;
    let read;
    try {
      read = readTextFile(real, Math.max(0, Math.min(limits.perFileBytes, remaining)));
    } catch (error) {
      info.notes.push(`cannot be read (${(error as Error).message})`);
      return;
    }
    info.size = read.size;
    if (remaining <= 0) {
      const note = `left out: instruction files are limited to ${formatSize(limits.totalBytes)} in all`;
      info.notes.push(note);
      leftOut.push(file);
      // A file of imports could name thousands of files: only the first few get a line in the prompt.
      if (leftOut.length <= MAX_LEFT_OUT_LINES) {
        out.files.push({
          path: file,
          content: `[… ${note}; read the file if you need it]`,
          ...(importer ? { importedBy: importer } : {}),
        });
      }
      return;
    }
    let content = read.text.replace(/\r\n?/g, '\n').trim();
    if (read.cut) {
      const byTotal = remaining < limits.perFileBytes;
      const note = byTotal
        ? `cut at ${formatSize(Buffer.byteLength(content))} of ${formatSize(read.size)}: instruction files are limited to ${formatSize(limits.totalBytes)} in all`
        : `cut at ${formatSize(limits.perFileBytes)} of ${formatSize(read.size)}: one instruction file is limited to ${formatSize(limits.perFileBytes)}`;
      info.notes.push(note);
      content = `${content}\n[… ${file} is ${note}]`;
    }
    info.included = Buffer.byteLength(content);
    used += info.included;
    if (content === '') {
      info.notes.push('empty');
    } else {
      out.files.push({ path: file, content, ...(importer ? { importedBy: importer } : {}) });
    }
    for (const target of imports(read.text, file, info)) {
      if (chain.length + 1 > limits.importDepth) {
        refuse(file, `@${target.token} is not imported: imports nest at most ${limits.importDepth} deep`);
        continue;
      }
      const cycle = [...chain, file].find((earlier) => realOr(earlier) === realOr(target.path));
      if (cycle !== undefined) {
        refuse(file, `@${target.token} is not imported: it would import ${cycle} again (a cycle)`);
        continue;
      }
      visit(target.path, scope, [...chain, file], target.token);
    }
  };

  /** A note on the importing file, and a warning: an import that was asked for and not made. */
  const refuse = (importer: string, note: string): void => {
    out.info.find((entry) => entry.path === importer)?.notes.push(note);
    out.warnings.push(`${importer}: ${note}`);
  };

  const imports = (text: string, file: string, info: InstructionFileInfo) => {
    const found = new Map<string, { token: string; path: string }>();
    for (const raw of importTokens(text)) {
      const target = resolveImport(raw, file, sources.home);
      if (target === undefined) {
        // `@octocat` is prose; a path to a Markdown file that is not there is likely a typo.
        if (raw.startsWith('~/') && !sources.home) info.notes.push(`@${raw} is not imported: no home folder is known`);
        else if (/\.md$/i.test(withoutTrailingPunctuation(raw)))
          info.notes.push(`@${withoutTrailingPunctuation(raw)} is not imported: no such file`);
        continue;
      }
      if (!found.has(target.path)) found.set(target.path, target);
    }
    return found.values();
  };

  // Every file of each level, each once (one linked to another, or imported by it, is read once):
  // outrider's and Claude Code's names side by side, and Claude Code's personal CLAUDE.local.md.
  const user = existingFiles([
    path.join(sources.outriderHome, 'AGENTS.md'),
    ...(sources.home ? [path.join(sources.home, '.claude', 'CLAUDE.md')] : []),
  ]);
  for (const file of user) visit(file, 'user', []);
  for (const dir of levels(root, path.resolve(sources.cwd))) {
    for (const file of existingFiles(LEVEL_FILES.map((name) => path.join(dir, name)))) visit(file, 'project', []);
  }
  if (leftOut.length > 0) {
    const shown = leftOut.slice(0, 3).join(', ') + (leftOut.length > 3 ? ` and ${leftOut.length - 3} more` : '');
    out.warnings.push(`instruction files left out, over the ${formatSize(limits.totalBytes)} budget: ${shown}`);
  }
  return out;
}

/** The instruction files of one folder, in prompt order. */
const LEVEL_FILES = ['AGENTS.md', 'CLAUDE.md', 'CLAUDE.local.md'];

/** The paths that are files (links followed), in order. */
function existingFiles(candidates: string[]): string[] {
  return candidates.filter((file) => firstFile([file]) !== undefined);
}

/** Folders from `root` down to `cwd`, both included. */
function levels(root: string, cwd: string): string[] {
  const dirs: string[] = [];
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    dirs.unshift(dir);
    if (dir === root || path.dirname(dir) === dir) break;
  }
  return dirs;
}

/** The first path that is a file (links followed); a folder or FIFO of that name does not count. */
function firstFile(candidates: string[]): string | undefined {
  return candidates.find((file) => {
    try {
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * `@token` as a file: relative to the importing file, `~/` from the home folder, or absolute.
 * A token that names no file is prose (`@octocat`), unless a sentence's punctuation hid it.
 */
function resolveImport(token: string, from: string, home: string | undefined): { token: string; path: string } | undefined {
  for (const candidate of new Set([token, withoutTrailingPunctuation(token)])) {
    if (candidate === '' || candidate === '~') continue;
    let file: string;
    if (candidate.startsWith('~/')) {
      if (!home) return undefined;
      file = path.join(home, candidate.slice(2));
    } else file = path.resolve(path.dirname(from), candidate);
    if (firstFile([file])) return { token: candidate, path: file };
  }
  return undefined;
}

function realOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}
