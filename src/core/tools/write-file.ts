import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { notWritableReason } from '../platform/atomic-write.js';
import { defineTool } from './define.js';
import { DIFF_MAX_LINES, splitLines, unifiedDiff } from './diff.js';
import { displayPath } from '../platform/paths.js';
import { notRegular, readRegularFile } from '../platform/regular-file.js';
import { type TextSink, writeText } from './text-sink.js';
import { resolveWritablePath } from './workspace-guard.js';

const schema = z.object({ path: z.string(), content: z.string() });

/** write_file; with `sink`, the new text goes to an editor's buffer too (text-sink.ts). */
export function createWriteFileTool(options: { sink?: TextSink } = {}) {
  return defineTool({
    name: 'write_file',
    description:
      'Create or overwrite a file with `content`, creating parent directories. For changes to an existing file prefer edit_file. Returns a diff.',
    schema,
    kind: 'mutating',
    paths: (args) => [args.path],
    label: (args) => args.path,
    async execute(args, ctx) {
      ctx.signal.throwIfAborted();
      const target = resolveWritablePath(ctx.workspace, args.path);
      if (!target.ok) return target.output;
      // Written at its real path: a symlink on the way was judged by where it leads, and stays a link.
      const { absolute, real } = target.path;
      const shown = displayPath(ctx.workspace, absolute);

      // What it replaces, for the diff. A FIFO or a device is refused before it is opened: reading
      // one would wait, or never end, and a FIFO, socket or device is not replaced by a file.
      const read = await readRegularFile(real, ctx.signal);
      if (!read.ok && read.reason === 'directory')
        return { content: `${shown} is a directory; give a file path.`, isError: true };
      if (!read.ok && read.reason === 'special') {
        return { content: `${notRegular(shown, read.kind)}; write_file writes regular files only.`, isError: true };
      }
      const previous = read.ok ? read.bytes.toString('utf8') : undefined;

      const locked = await notWritableReason(real, shown);
      if (locked) return { content: locked, isError: true };
      ctx.signal.throwIfAborted();
      await mkdir(path.dirname(real), { recursive: true });
      await writeText(real, args.content, options.sink, ctx.signal);

      const lines = splitLines(args.content).length;
      if (previous === undefined) return `Created ${shown} (${lines} line${lines === 1 ? '' : 's'})`;
      if (previous === args.content) return `${shown} already had this content; nothing changed.`;
      if (previous.includes('\0')) return `Overwrote binary file ${shown} with ${lines} lines of text`;
      const diff = unifiedDiff(previous, args.content, { maxLines: DIFF_MAX_LINES });
      if (diff.text === '') return `Updated ${shown} (only the newline at the end changed)`;
      return `Updated ${shown} (+${diff.added} -${diff.removed})\n${diff.text}`;
    },
  });
}

export const writeFileTool = createWriteFileTool();
