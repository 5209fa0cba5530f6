import { type Stats, statSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as z from 'zod';
import { type ToolOutput, defineTool } from './define.js';
import { largeImage, readImage } from './read-image.js';
import { completeUtf8Length } from '../platform/read-text-file.js';
import { formatSize } from '../platform/text.js';
import { untilAborted } from '../platform/until-aborted.js';
import { isMissing } from '../platform/fs-errors.js';
import { displayPath, resolveWorkspacePath } from '../platform/paths.js';
import {
  type NotOpened,
  notRegular,
  openRegularFile,
  readRegularFile,
  readRegularFileNow,
  specialKind,
} from '../platform/regular-file.js';

export const READ_DEFAULT_LIMIT = 2_000;
export const READ_MAX_LINE = 2_000;
/** Files up to this size are read whole (and their line count told); larger ones are streamed. */
const WHOLE_READ_MAX = 16 * 1024 * 1024;
const BINARY_SNIFF = 8 * 1024;
/**
 * Files up to this size are read synchronously: a read_file is one step of every loop, and the
 * promise API's hops through the thread pool (stat, open, fstat, read, read, close) cost several
 * times the read itself. Bounded so that a large file never holds the event loop for long.
 */
const SYNC_READ_MAX = 256 * 1024;

const schema = z.object({
  path: z.string(),
  offset: z.number().int().min(1).optional().describe('first line number, 1-based'),
  limit: z.number().int().min(1).optional(),
});

/**
 * Where read_file takes a regular file's text before the disk: an editor's buffer, unsaved
 * changes included (ACP's fs/read_text_file). Undefined, or a failure: the file on disk.
 */
export type TextSource = (absolutePath: string, signal: AbortSignal) => Promise<string | undefined>;

/** read_file; with `source`, a file's text comes from there first (the file is still checked on disk). */
export function createReadFileTool(options: { source?: TextSource } = {}) {
  return defineTool({
    name: 'read_file',
    description:
      'Read a file: lines numbered like `cat -n` (1-based), up to 2000 from `offset`, long lines cut; a PNG, JPEG, GIF or WebP is seen as an image. Read before editing.',
    schema,
    kind: 'read-only',
    paths: (args) => [args.path],
    label: (args) => args.path,
    async execute(args, ctx) {
      const { absolute } = resolveWorkspacePath(ctx.workspace, args.path);
      const shown = displayPath(ctx.workspace, absolute);
      // Looked at before anything opens it: a FIFO would wait for a writer, a device never end.
      const info = statOrMissing(absolute);
      if (!info) return refusal(shown, { ok: false, reason: 'missing' });
      if (!info.isFile()) return refusal(shown, info.isDirectory() ? { ok: false, reason: 'directory' } : special(info));
      const binary = `${shown} is a binary file (${formatSize(info.size)}); read_file shows text and PNG, JPEG, GIF or WebP images only.`;
      const offset = args.offset ?? 1;
      const limit = args.limit ?? READ_DEFAULT_LIMIT;
      const fromSource =
        options.source && info.size <= WHOLE_READ_MAX ? await sourceText(options.source, absolute, ctx.signal) : undefined;
      let page: Page;
      if (fromSource !== undefined) {
        // An editor's text of an image is no image: the bytes on disk say what the file is.
        if (fromSource.includes('\u0000') || fromSource.startsWith('\ufffd')) {
          const image = await diskImage(absolute, shown, ctx.signal);
          if (image) return image;
        }
        if (fromSource.includes('\u0000')) return { content: binary, isError: true };
        if (fromSource.length === 0) return `(${shown} is empty)`;
        page = pageOf(fromSource, offset, limit);
      } else if (info.size <= WHOLE_READ_MAX) {
        // One read for both the sniff and the text: a read_file per step, every step.
        ctx.signal.throwIfAborted();
        const read =
          (info.size <= SYNC_READ_MAX ? readRegularFileNow(absolute, SYNC_READ_MAX) : undefined) ??
          (await readRegularFile(absolute, ctx.signal));
        // Replaced by something else since the stat.
        if (!read.ok) return refusal(shown, read);
        const bytes = read.bytes;
        const image = readImage(shown, bytes);
        if (image) return image;
        if (sniffsBinary(bytes)) return { content: binary, isError: true };
        if (bytes.length === 0) return `(${shown} is empty)`;
        page = pageOf(bytes.toString('utf8'), offset, limit);
      } else {
        const opened = await openRegularFile(absolute, ctx.signal);
        if (!opened.ok) return refusal(shown, opened);
        try {
          const head = await readHead(opened.handle, ctx.signal);
          const image = largeImage(shown, head, info.size);
          if (image) return image;
          if (sniffsBinary(head)) return { content: binary, isError: true };
          page = await streamPage(opened.handle, offset, limit, ctx.signal);
        } finally {
          // A FileHandle closes once its reads are done: after an abort one may still be stuck, and nobody waits for it.
          const closing = opened.handle.close();
          if (ctx.signal.aborted) closing.catch(() => {});
          else await closing;
        }
      }
      if (page.lines.length === 0) {
        return { content: `${shown} has ${page.total} lines; offset ${offset} is past the end.`, isError: true };
      }
      const last = offset + page.lines.length - 1;
      const body = page.lines.map((line, i) => `${String(offset + i).padStart(6)}\t${line}`).join('\n');
      if (!page.more) return body;
      const of = page.total === undefined ? `; the file (${formatSize(info.size)}) continues` : ` of ${page.total}`;
      return `${body}\n\n[Lines ${offset}-${last}${of}. Read on with offset=${last + 1}.]`;
    },
  });
}

export const readFileTool = createReadFileTool();

/** The source's text, or undefined when it has none or fails (the disk answers instead); an abort still aborts. */
async function sourceText(source: TextSource, file: string, signal: AbortSignal): Promise<string | undefined> {
  try {
    return await untilAborted(source(file, signal), signal);
  } catch {
    signal.throwIfAborted();
    return undefined;
  }
}

function statOrMissing(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

const special = (info: Stats): NotOpened => ({ ok: false, reason: 'special', kind: specialKind(info) });

/** The error result for a path that was not read. */
function refusal(shown: string, why: NotOpened): ToolOutput {
  switch (why.reason) {
    case 'missing':
      return { content: `File not found: ${shown}. Use glob to find files by name.`, isError: true };
    case 'directory':
      return { content: `${shown} is a directory; use list_dir to see its entries.`, isError: true };
    case 'special':
      return { content: `${notRegular(shown, why.kind)}; read_file reads regular files only.`, isError: true };
  }
}

interface Page {
  lines: string[];
  /** Lines in the file, when it was read whole. */
  total?: number;
  more: boolean;
}

function pageOf(text: string, offset: number, limit: number): Page {
  const all = text.split('\n');
  if (all[all.length - 1] === '') all.pop();
  const lines = all.slice(offset - 1, offset - 1 + limit).map((line) => cutLine(dropCarriageReturn(line)));
  return { lines, total: all.length, more: offset - 1 + limit < all.length };
}

/** Bytes kept of one streamed line: enough for READ_MAX_LINE characters of any UTF-8. */
const STREAM_LINE_KEEP = READ_MAX_LINE * 4;
const STREAM_CHUNK = 64 * 1024;

/**
 * Reads only as far as the page needs, by bytes: of each line only what can be shown is kept,
 * so a file that is one 600 MB line costs a few KB of memory, not the line (readline would
 * hold the whole line as one string and fail past Node's string limit).
 */
async function streamPage(handle: FileHandle, offset: number, limit: number, signal: AbortSignal): Promise<Page> {
  const chunk = Buffer.alloc(STREAM_CHUNK);
  const lines: string[] = [];
  let completed = 0;
  let head: Buffer[] = [];
  let kept = 0;
  let lineBytes = 0;
  const endLine = () => {
    completed += 1;
    if (completed >= offset) lines.push(streamedLine(Buffer.concat(head), lineBytes));
    head = [];
    kept = 0;
    lineBytes = 0;
  };
  const size = (await handle.stat()).size;
  let position = 0;
  while (lines.length < limit) {
    signal.throwIfAborted();
    const { bytesRead } = await untilAborted(handle.read(chunk, 0, STREAM_CHUNK, position), signal);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    let start = 0;
    while (start < bytesRead && lines.length < limit) {
      const newline = data.indexOf(10, start);
      const end = newline === -1 ? bytesRead : newline;
      if (completed + 1 >= offset && kept < STREAM_LINE_KEEP) {
        const take = Math.min(end - start, STREAM_LINE_KEEP - kept);
        head.push(Buffer.from(data.subarray(start, start + take)));
        kept += take;
      }
      lineBytes += end - start;
      if (newline === -1) {
        start = bytesRead;
      } else {
        endLine();
        start = newline + 1;
      }
    }
    position += start;
  }
  // A last line without a newline counts, as it does for readline.
  if (lines.length < limit && (lineBytes > 0 || kept > 0)) endLine();
  const more = lines.length === limit && position < size;
  return { lines, total: more ? undefined : completed, more };
}

/** One streamed line as shown: at most READ_MAX_LINE characters, and its size when it was cut. */
function streamedLine(head: Buffer, lineBytes: number): string {
  const whole = head.length === lineBytes;
  const text = dropCarriageReturn(head.subarray(0, whole ? head.length : completeUtf8Length(head)).toString('utf8'));
  if (whole && text.length <= READ_MAX_LINE) return text;
  return `${text.slice(0, READ_MAX_LINE)}… [line cut: ${formatSize(lineBytes)}]`;
}

function dropCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

function cutLine(line: string): string {
  if (line.length <= READ_MAX_LINE) return line;
  return `${line.slice(0, READ_MAX_LINE)}… [line cut: ${line.length} characters]`;
}

/** A NUL byte in the first 8 KB marks a binary file, as git and grep decide. */
export function sniffsBinary(head: Buffer): boolean {
  return head.subarray(0, BINARY_SNIFF).includes(0);
}

/** The head of a file, read alone (for files too large to read whole): enough to sniff. */
async function readHead(handle: FileHandle, signal: AbortSignal): Promise<Buffer> {
  const buffer = Buffer.alloc(BINARY_SNIFF);
  const { bytesRead } = await untilAborted(handle.read(buffer, 0, BINARY_SNIFF, 0), signal);
  return buffer.subarray(0, bytesRead);
}

/** The file on disk as an image result, or undefined when it is no image (or could not be read). */
async function diskImage(file: string, shown: string, signal: AbortSignal): Promise<ToolOutput | undefined> {
  const read = await readRegularFile(file, signal);
  return read.ok ? readImage(shown, read.bytes) : undefined;
}
