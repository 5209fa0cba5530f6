import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { defineTool } from './define.js';
import { IgnoreScope } from './ignore-rules.js';
import { displayPath, resolveWorkspacePath } from '../platform/paths.js';
import { errnoCode } from '../platform/fs-errors.js';

export const LIST_DIR_LIMIT = 500;
/** Ignored entries are named in the header up to this many. */
const IGNORED_NAMES_SHOWN = 10;

const schema = z.object({ path: z.string().optional() });

export const listDirTool = defineTool({
  name: 'list_dir',
  description:
    'List one directory (default: workspace root), sorted, directories with a trailing /; .gitignored entries and .git are only named in the header. Not recursive: use glob for deeper files.',
  schema,
  kind: 'read-only',
  paths: (args) => [args.path ?? '.'],
  label: (args) => args.path ?? '.',
  async execute(args, ctx) {
    const { absolute } = resolveWorkspacePath(ctx.workspace, args.path ?? '.');
    const shown = displayPath(ctx.workspace, absolute);
    let entries: Dirent[];
    try {
      entries = await readdir(absolute, { withFileTypes: true });
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT') {
        return { content: `Directory not found: ${shown}. Use glob to find it.`, isError: true };
      }
      if (code === 'ENOTDIR') return { content: `${shown} is a file; use read_file to read it.`, isError: true };
      throw error;
    }
    if (entries.length === 0) return `${shown} is empty`;

    // The same rules as glob and grep (ignore-rules.ts), so the three agree on what exists.
    const scope = await IgnoreScope.forDirectory(absolute, { workspaceRoot: ctx.workspace.root });
    const listed = await Promise.all(
      entries.map(async (entry) => {
        const isDir =
          entry.isDirectory() ||
          (entry.isSymbolicLink() &&
            (await stat(path.join(absolute, entry.name)).then(
              (s) => s.isDirectory(),
              () => false,
            )));
        const ignored = entry.name === '.git' || scope.ignores(entry.name, isDir);
        return { name: isDir ? `${entry.name}/` : entry.name, ignored };
      }),
    );
    const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const names = listed
      .filter((e) => !e.ignored)
      .map((e) => e.name)
      .sort(byName);
    const ignored = listed
      .filter((e) => e.ignored)
      .map((e) => e.name)
      .sort(byName);
    const dirs = names.filter((n) => n.endsWith('/')).length;
    const files = names.length - dirs;
    let header = `${shown}: ${plural(names.length, 'entry', 'entries')} (${plural(dirs, 'directory', 'directories')}, ${plural(files, 'file', 'files')})`;
    if (ignored.length > 0) header += `; ${ignored.length} ignored, not listed: ${shortList(ignored)}`;
    if (names.length === 0) return header;
    const shownNames = names.slice(0, LIST_DIR_LIMIT);
    const hidden = names.length - shownNames.length;
    const more = hidden > 0 ? `\n[${hidden} more entries not shown; use glob to narrow down.]` : '';
    return `${header}\n${shownNames.join('\n')}${more}`;
  },
});

/** The first few names, then how many more: an ignored build folder can hold thousands of entries. */
function shortList(names: string[]): string {
  const shownNames = names.slice(0, IGNORED_NAMES_SHOWN).join(', ');
  return names.length > IGNORED_NAMES_SHOWN ? `${shownNames}, … (${names.length - IGNORED_NAMES_SHOWN} more)` : shownNames;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
