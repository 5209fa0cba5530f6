import { stat } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { defineTool } from './define.js';
import { isMissing } from '../platform/fs-errors.js';
import { globMatcher, literalDirectory } from './glob-match.js';
import { displayPath, resolveWorkspacePath } from '../platform/paths.js';
import { toPosix, walkFiles } from './walk-files.js';

export const GLOB_RESULT_LIMIT = 200;

const schema = z.object({ pattern: z.string(), path: z.string().optional() });

export const globTool = defineTool({
  name: 'glob',
  description:
    'Find files by glob pattern, e.g. "src/**/*.{ts,tsx}", matched against paths below `path` (default: workspace root). Skips .gitignored files, .git and node_modules unless the pattern names them. Newest first, at most 200.',
  schema,
  kind: 'read-only',
  paths: (args) => [args.path ?? '.'],
  label: (args) => (args.path ? `${args.pattern} in ${args.path}` : args.pattern),
  async execute(args, ctx) {
    let { absolute: base } = resolveWorkspacePath(ctx.workspace, args.path ?? '.');
    const shown = displayPath(ctx.workspace, base);
    const info = await stat(base).catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
    if (!info) return { content: `Path not found: ${shown}. Use list_dir to see what exists.`, isError: true };
    if (!info.isDirectory())
      return { content: `${shown} is a file, not a directory; give its directory as path.`, isError: true };

    let pattern = args.pattern.replace(/^(\.\/)+/, '');
    if (path.isAbsolute(pattern)) {
      base = path.parse(pattern).root;
      pattern = pattern.slice(base.length);
    }
    const matches = globMatcher(pattern);
    const start = path.join(base, literalDirectory(pattern));
    const skipDirs = new Set(['.git', 'node_modules'].filter((name) => !pattern.includes(name)));

    const found: { file: string; mtime: number }[] = [];
    const startInfo = await stat(start).catch(() => undefined);
    if (startInfo?.isDirectory()) {
      for await (const entry of walkFiles({ root: ctx.workspace.root, start, signal: ctx.signal, skipDirs })) {
        if (!matches(toPosix(path.relative(base, entry.absolute)))) continue;
        const mtime = await stat(entry.absolute).then(
          (s) => s.mtimeMs,
          () => 0,
        );
        found.push({ file: displayPath(ctx.workspace, entry.absolute), mtime });
      }
    }
    if (found.length === 0) {
      const hint = pattern.includes('/') ? '' : `; use **/${pattern} to search subdirectories too`;
      return `No files match ${args.pattern} in ${shown}${hint}`;
    }
    found.sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    const lines = found.slice(0, GLOB_RESULT_LIMIT).map((f) => f.file);
    const hidden = found.length - lines.length;
    if (hidden > 0) lines.push(`\n[${hidden} more files not shown (${found.length} in all); narrow the pattern.]`);
    return lines.join('\n');
  },
});
