/**
 * `@shot.png` in a prompt the user typed (a custom command's arguments too) attaches that image,
 * as in Claude Code: each `@path` naming a .png, .jpg, .jpeg, .gif or .webp file is read through
 * the session's permission gate as the read_file call it is (a deny rule, plan mode and the
 * workspace bounds hold), checked as any image sent is (image-block.ts), and goes with the
 * prompt. The `@path` stays in the text, so the model knows which file it sees. Other `@path`s
 * stay text: the model reads files with its tools.
 */
import { statSync } from 'node:fs';
import type { ToolGate } from '../permissions/types.js';
import { resolveWorkspacePath } from '../platform/paths.js';
import { readRegularFile } from '../platform/regular-file.js';
import { formatSize } from '../platform/text.js';
import { ImageError, MAX_IMAGE_BASE64, MAX_PROMPT_IMAGES, imageFromBytes } from '../providers/image-block.js';
import type { ImageBlock } from '../providers/types.js';
import type { Workspace } from '../tools/define.js';
import type { ToolRegistry } from '../tools/registry.js';

/** `@path` at the start of a line or after white space or `(`, ending in an image extension. */
const IMAGE_PATH = /(^|[\s(])@([^\s`)'"]+\.(?:png|jpe?g|gif|webp))(?=$|[\s),;:!?]|\.(?:\s|$))/gim;
/** The largest file read for an image: its base64 must fit Anthropic's limit. */
const MAX_FILE_BYTES = Math.floor((MAX_IMAGE_BASE64 * 3) / 4);

/** Reads one `@path` as an image: the block, or a line saying it was not attached and why. */
export type ImageReader = (file: string, signal: AbortSignal) => Promise<ImageBlock | string>;

/** The image paths a prompt names with `@`, each once, in order. */
export function imagePaths(text: string): string[] {
  if (!text.includes('@')) return [];
  return [...new Set([...text.matchAll(IMAGE_PATH)].map((match) => match[2]!))];
}

/**
 * The images `text` names with `@path`, read in order: no more than `room` attached, and no more
 * than MAX_PROMPT_IMAGES files tried (a prompt naming thousands reads twenty). Each one not
 * attached is told through `notify` with the reason; those never tried, in one line.
 */
export async function promptImages(
  text: string,
  options: { read: ImageReader; room: number; notify: (text: string) => void },
  signal: AbortSignal,
): Promise<ImageBlock[]> {
  const images: ImageBlock[] = [];
  const paths = imagePaths(text);
  let tried = 0;
  for (; tried < paths.length && images.length < options.room && tried < MAX_PROMPT_IMAGES; tried++) {
    const read = await options.read(paths[tried]!, signal);
    if (typeof read === 'string') options.notify(read);
    else images.push(read);
  }
  const rest = paths.slice(tried);
  if (rest.length > 0) {
    const named = rest.slice(0, 3).map((file) => `@${file}`);
    const more = rest.length > 3 ? `, and ${rest.length - 3} more` : '';
    options.notify(`${named.join(', ')}${more} not attached: a prompt carries at most ${MAX_PROMPT_IMAGES} images`);
  }
  return images;
}

/**
 * What a session attaches to a prompt: the images the front end gave, then the `@path` images of
 * what the user typed, a command's arguments included (`/review @shot.png`). Only the typed text
 * is read for them, never the prompt a command expands to: a command file's body is the
 * repository's text, and a repository must not make outrider read a file and send it away by
 * naming it there (its `@path`s are body directives, put in as text behind the gate).
 */
export type PromptImages = (typed: string, given: readonly ImageBlock[], signal: AbortSignal) => Promise<ImageBlock[]>;

/** A session's PromptImages: files read behind its gate, each one not attached told through `notify`. */
export function sessionPromptImages(options: {
  gate: ToolGate;
  tools: ToolRegistry;
  workspace: Workspace;
  notify: (text: string) => void;
}): PromptImages {
  const read = gatedImageReader(options);
  return async (typed, given, signal) => {
    const room = MAX_PROMPT_IMAGES - given.length;
    return [...given, ...(await promptImages(typed, { read, room, notify: options.notify }, signal))];
  };
}

/** The reader a session uses: the read_file permission behind the session's gate, then the file's bytes. */
export function gatedImageReader(options: { gate: ToolGate; tools: ToolRegistry; workspace: Workspace }): ImageReader {
  return async (file, signal) => {
    const why = (reason: string) => `@${file} was not attached: ${reason}`;
    const tool = options.tools.get('read_file');
    if (!tool) return why('read_file is not available');
    const parsed = options.tools.parseArgs(tool, { path: file });
    if (!parsed.ok) return why(parsed.error);
    const verdict = await options.gate({ tool, args: parsed.args, label: file }, signal);
    if (!verdict.allowed) return why(verdict.message);
    const { absolute } = resolveWorkspacePath(options.workspace, file);
    let size: number;
    try {
      size = statSync(absolute).size;
    } catch {
      return why('there is no such file');
    }
    if (size > MAX_FILE_BYTES) {
      return why(
        `it is ${formatSize(size)}; an image may be at most ${formatSize(MAX_FILE_BYTES)}: scale it down or save it as JPEG`,
      );
    }
    try {
      const read = await readRegularFile(absolute, signal);
      if (!read.ok) return why(read.reason === 'special' ? `it is ${read.kind}` : `it is not a file (${read.reason})`);
      return imageFromBytes(read.bytes, `@${file}`);
    } catch (error) {
      signal.throwIfAborted();
      // An image's own message names the file already.
      return error instanceof ImageError ? `${error.message}; it was not attached` : why((error as Error).message);
    }
  };
}
