import * as z from 'zod';
import { notWritableReason } from '../platform/atomic-write.js';
import { defineTool } from './define.js';
import { DIFF_MAX_LINES, unifiedDiff } from './diff.js';
import { displayPath } from '../platform/paths.js';
import { notRegular, readRegularFile } from '../platform/regular-file.js';
import { type TextSink, writeText } from './text-sink.js';
import { resolveWritablePath } from './workspace-guard.js';

const schema = z.object({
  path: z.string(),
  old_string: z.string(),
  new_string: z.string(),
  replace_all: z.boolean().optional(),
});

/** edit_file; with `sink`, the new text goes to an editor's buffer too (text-sink.ts). */
export function createEditFileTool(options: { sink?: TextSink } = {}) {
  return defineTool({
    name: 'edit_file',
    description:
      'Replace exact text in a file. `old_string` must match the file exactly, whitespace included, and be unique unless `replace_all` is true. Read the file first. Returns a diff.',
    schema,
    kind: 'mutating',
    paths: (args) => [args.path],
    label: (args) => args.path,
    async execute(args, ctx) {
      ctx.signal.throwIfAborted();
      const target = resolveWritablePath(ctx.workspace, args.path);
      if (!target.ok) return target.output;
      const { absolute, real } = target.path;
      const shown = displayPath(ctx.workspace, absolute);

      if (args.old_string === '') {
        return { content: 'old_string is empty; to create or overwrite a file use write_file.', isError: true };
      }
      if (args.old_string === args.new_string) {
        return { content: 'old_string and new_string are identical; there is nothing to change.', isError: true };
      }
      // A FIFO or a device is refused before it is opened: reading one would wait, or never end.
      const read = await readRegularFile(real, ctx.signal);
      if (!read.ok) {
        switch (read.reason) {
          case 'missing':
            return { content: `File not found: ${shown}. Use write_file to create it.`, isError: true };
          case 'directory':
            return { content: `${shown} is a directory, not a file.`, isError: true };
          case 'special':
            return { content: `${notRegular(shown, read.kind)}; edit_file edits regular files only.`, isError: true };
        }
      }
      const content = read.bytes.toString('utf8');

      let oldString = args.old_string;
      let newString = args.new_string;
      let count = countOccurrences(content, oldString);
      // read_file shows CRLF files without their \r, so the model's old_string has bare \n.
      if (count === 0 && content.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r')) {
        oldString = toCrlf(oldString);
        newString = toCrlf(newString);
        count = countOccurrences(content, oldString);
      }
      if (count === 0) {
        return {
          content: `old_string was not found in ${shown}. Read the file first; whitespace and indentation must match exactly.`,
          isError: true,
        };
      }
      if (count > 1 && !args.replace_all) {
        return {
          content: `old_string was found ${count} times in ${shown}; include more surrounding lines to make it unique, or set replace_all to true.`,
          isError: true,
        };
      }

      // split/join and slicing, never String.replace: `$&` in new_string must stay literal.
      const updated = args.replace_all ? content.split(oldString).join(newString) : spliceFirst(content, oldString, newString);
      ctx.signal.throwIfAborted();
      const locked = await notWritableReason(real, shown);
      if (locked) return { content: locked, isError: true };
      await writeText(real, updated, options.sink, ctx.signal);

      const diff = unifiedDiff(content, updated, { maxLines: DIFF_MAX_LINES });
      const what = count === 1 ? '1 replacement' : `${count} replacements`;
      if (diff.text === '') return `Edited ${shown}: ${what} (only line endings changed)`;
      return `Edited ${shown}: ${what} (+${diff.added} -${diff.removed})\n${diff.text}`;
    },
  });
}

export const editFileTool = createEditFileTool();

/** Non-overlapping occurrences, counted left to right as split() finds them. */
export function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

function spliceFirst(text: string, needle: string, replacement: string): string {
  const at = text.indexOf(needle);
  return text.slice(0, at) + replacement + text.slice(at + needle.length);
}

function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}
