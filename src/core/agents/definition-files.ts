import { type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { readTextFile } from '../platform/read-text-file.js';
import { isMissing } from '../platform/fs-errors.js';
import { isWithin } from '../platform/paths.js';

/** Sub-folder levels read below an agents folder (`categories/01-core/x.md` is level 2). */
export const MAX_AGENT_FOLDER_DEPTH = 5;
/** Files read from one agents folder, all levels together. */
export const MAX_AGENT_FILES = 2000;
/** A definition larger than this is not a prompt anyone wrote by hand. */
export const MAX_AGENT_FILE_BYTES = 256 * 1024;
/** Bytes read from one agents folder, all files together: a repository cannot make start-up read half a gigabyte. */
export const MAX_AGENT_FOLDER_BYTES = 8 * 1024 * 1024;

/** One `.md` file found under an agents folder: the path as the user would write it, and its text. */
export interface DefinitionFile {
  path: string;
  text: string;
}

export interface ReadFolderOptions {
  /** A folder the agents folder itself must really lie in (the project, for a repository's folders). */
  within?: string;
  /** What the files define, for the warnings: `agent` (default), `command`. */
  noun?: string;
}

/**
 * Every `.md` file under `dir` and its sub-folders (Claude Code's collections sort agents
 * into `categories/…`), in path order, code unit by code unit so every machine loads the same
 * way. Hidden entries are skipped. Symbolic links are followed only while they stay inside
 * the folder: a repository must not turn a file elsewhere on the machine into a prompt.
 * Depth, file count and file size are bounded; whatever is left out is reported.
 */
export function readDefinitionFolder(
  dir: string,
  options: ReadFolderOptions = {},
): { files: DefinitionFile[]; warnings: string[] } {
  const files: DefinitionFile[] = [];
  const warnings: string[] = [];
  const noun = options.noun ?? 'agent';
  let root: string;
  try {
    root = realpathSync(dir);
    if (!statSync(root).isDirectory()) {
      warnings.push(`${dir}: not a folder; ${noun} definitions go in a folder of .md files`);
      return { files, warnings };
    }
  } catch (error) {
    if (!isMissing(error)) warnings.push(`${dir}: cannot read the folder (${(error as Error).message})`);
    return { files, warnings };
  }
  if (options.within !== undefined && !isWithin(realOr(options.within), root)) {
    warnings.push(`${dir}: a link to ${root}, outside the project; its ${noun}s are not read`);
    return { files, warnings };
  }

  const visited = new Set<string>([root]);
  let full = false;
  let bytes = 0;
  const walk = (realDir: string, shownDir: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(realDir, { withFileTypes: true });
    } catch (error) {
      warnings.push(`${shownDir}: cannot read the folder (${(error as Error).message})`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (full) return;
      if (entry.name.startsWith('.')) continue;
      const shown = path.join(shownDir, entry.name);
      const isMarkdown = entry.name.endsWith('.md');
      let real = path.join(realDir, entry.name);
      let kind: 'file' | 'folder' | 'other' = entry.isDirectory() ? 'folder' : entry.isFile() ? 'file' : 'other';
      if (entry.isSymbolicLink()) {
        try {
          real = realpathSync(real);
          const stat = statSync(real);
          kind = stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : 'other';
        } catch {
          if (isMarkdown) warnings.push(`${shown}: a link that leads nowhere; skipped`);
          continue;
        }
        if (!isWithin(root, real)) {
          if (isMarkdown || kind === 'folder') warnings.push(`${shown}: links outside ${dir} (to ${real}); not read`);
          continue;
        }
      }
      if (kind === 'folder') {
        // A link back to a folder already walked would read the same files again.
        if (visited.has(real)) continue;
        visited.add(real);
        if (depth >= MAX_AGENT_FOLDER_DEPTH) {
          warnings.push(`${shown}: not read: ${noun} folders are read at most ${MAX_AGENT_FOLDER_DEPTH} levels deep`);
          continue;
        }
        walk(real, shown, depth + 1);
        continue;
      }
      if (!isMarkdown) continue;
      if (files.length >= MAX_AGENT_FILES) {
        warnings.push(`${dir}: more than ${MAX_AGENT_FILES} ${noun} files; the rest (from ${shown} on) are not read`);
        full = true;
        return;
      }
      if (bytes >= MAX_AGENT_FOLDER_BYTES) {
        warnings.push(
          `${dir}: its ${noun} files pass ${MAX_AGENT_FOLDER_BYTES / 1024 / 1024} MB; the rest (from ${shown} on) are not read`,
        );
        full = true;
        return;
      }
      const text = readDefinition(real, shown, noun, warnings);
      if (text !== undefined) {
        files.push({ path: shown, text });
        bytes += Buffer.byteLength(text);
      }
    }
  };
  walk(root, dir, 0);
  return { files, warnings };
}

function readDefinition(real: string, shown: string, noun: string, warnings: string[]): string | undefined {
  try {
    const read = readTextFile(real, MAX_AGENT_FILE_BYTES);
    if (read.cut) {
      warnings.push(`${shown}: ${read.size} bytes; ${noun} files over ${MAX_AGENT_FILE_BYTES / 1024} KB are not read`);
      return undefined;
    }
    return read.text;
  } catch (error) {
    warnings.push(`${shown}: cannot read the file (${(error as Error).message})`);
    return undefined;
  }
}

function realOr(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}
