/**
 * The images of a transcript, kept out of its lines: a screenshot-driven session would otherwise
 * grow its JSONL by megabytes an image, until it could no longer be read back as one string (and
 * every resume read all of them). Each image's base64 goes once into `images/<sha256>.b64` of the
 * session folder (0600, written atomically, named by the SHA-256 of what it holds, as file
 * checkpoints' blobs are); the line holds `{ type: 'image', mediaType, ref }` in its place. Read
 * back, a reference that is not a SHA-256, or a file that is missing, unreadable or whose bytes
 * hash to another name (a hand edit), becomes a note where the image was, never a crash.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../platform/atomic-write.js';
import { errnoCode, isMissing } from '../platform/fs-errors.js';
import { readRegularFileNow } from '../platform/regular-file.js';
import { MAX_IMAGE_BASE64 } from '../providers/image-block.js';
import type { ContentBlock, ImageBlock, Message, ToolResultBlock } from '../providers/types.js';
import { sha256 } from './file-state.js';

/** An image as a transcript line holds it: its type and the SHA-256 naming the file its base64 is in. */
export type ImageRef = { type: 'image'; mediaType: ImageBlock['mediaType']; ref: string };
type StoredResult = Omit<ToolResultBlock, 'images'> & { images?: (ImageBlock | ImageRef)[] };
type StoredBlock = Exclude<ContentBlock, ImageBlock | ToolResultBlock> | ImageBlock | ImageRef | StoredResult;
/** A message as a transcript line holds it: images by reference (inline where one could not be stored). */
export type StoredMessage = Omit<Message, 'content'> & { content: StoredBlock[] };

/** A SHA-256 in hex, and nothing else: a reference never becomes a path of its own choosing. */
const REF = /^[0-9a-f]{64}$/;

/**
 * The folder of the images of `transcript`: the session folder's `images/`, which the session's
 * transcript and its sub-agents' (`agents/sub-N.jsonl`, store.ts) share, so a fork that replays
 * the parent's history stores none of its images again.
 */
export function imagesDirOf(transcript: string): string {
  const dir = path.dirname(transcript);
  return path.join(path.basename(dir) === 'agents' ? path.dirname(dir) : dir, 'images');
}

/** The writer's side: each image stored once, by its hash. */
export class TranscriptImages {
  /** Hashes known to be stored whole, so an image seen again costs no look at the disk. */
  private readonly known = new Set<string>();

  /**
   * `redact`: what the writer does to every line, done to the image's text too, so no key reaches
   * the disk. `onError` hears of an image that could not be stored.
   */
  constructor(
    readonly dir: string,
    private readonly redact: (text: string) => string,
    private readonly onError?: (error: Error) => void,
  ) {}

  /**
   * `message` with each image's data stored in its file and referred to. An image that cannot be
   * stored stays inline (the transcript stays whole, only larger) and `onError` hears why.
   */
  stored(message: Message): StoredMessage {
    if (!message.content.some((block) => block.type === 'image' || (block.type === 'tool_result' && block.images?.length))) {
      return message;
    }
    const byRef = (image: ImageBlock): ImageBlock | ImageRef => {
      try {
        return { type: 'image', mediaType: image.mediaType, ref: this.store(image.data) };
      } catch (error) {
        this.onError?.(error instanceof Error ? error : new Error(String(error)));
        return image;
      }
    };
    const content = message.content.map((block): StoredBlock => {
      if (block.type === 'image') return byRef(block);
      if (block.type === 'tool_result' && block.images?.length) return { ...block, images: block.images.map(byRef) };
      return block;
    });
    return { ...message, content };
  }

  /** Stores `data` (unless a whole copy is there already) and returns its hash. */
  private store(data: string): string {
    const text = this.redact(data);
    const ref = sha256(text);
    if (this.known.has(ref)) return ref;
    const file = path.join(this.dir, `${ref}.b64`);
    // A file there that does not hold these bytes (damaged, edited) is written over.
    if (!('data' in readBlob(this.dir, ref))) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      writeFileAtomicSync(file, text, { mode: 0o600 });
    }
    this.known.add(ref);
    return ref;
  }
}

/**
 * `history` (messages as read, untrusted) with every image reference replaced by its image, each
 * file read at most once. An image that cannot be had becomes a text note in its place (in a tool
 * result: the image is dropped and the note joins the result's text), and `warnings` gets one.
 */
export function resolveImages(history: unknown[], dir: string, warnings: string[]): unknown[] {
  const read = new Map<string, { data: string } | { why: string }>();
  /** The image, or the note that stands for it. */
  const resolve = (block: Record<string, unknown>): { image: ImageBlock } | { note: string } => {
    const ref = block.ref;
    let got: { data: string } | { why: string };
    if (typeof ref !== 'string' || !REF.test(ref)) {
      got = { why: 'its reference is not a SHA-256 (64 hex digits), so no file was read' };
    } else {
      got = read.get(ref) ?? readBlob(dir, ref);
      read.set(ref, got);
    }
    if ('data' in got) return { image: { type: 'image', mediaType: block.mediaType as ImageBlock['mediaType'], data: got.data } };
    warnings.push(`an image of the history could not be restored from ${dir}: ${got.why}; a note stands in its place`);
    return { note: `[image: ${shownType(block.mediaType)} not found: ${got.why}]` };
  };
  return history.map((message) => {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content) || !content.some(holdsRef)) return message;
    return { ...(message as object), content: content.flatMap((block: unknown) => resolveBlock(block, resolve)) };
  });
}

function resolveBlock(
  block: unknown,
  resolve: (block: Record<string, unknown>) => { image: ImageBlock } | { note: string },
): unknown[] {
  if (isImageRef(block)) {
    const got = resolve(block);
    return ['image' in got ? got.image : { type: 'text', text: got.note }];
  }
  const record = block as Record<string, unknown>;
  if (!holdsRef(block) || !Array.isArray(record.images)) return [block];
  const images: unknown[] = [];
  const notes: string[] = [];
  for (const image of record.images as unknown[]) {
    if (!isImageRef(image)) {
      images.push(image);
      continue;
    }
    const got = resolve(image);
    if ('image' in got) images.push(got.image);
    else notes.push(got.note);
  }
  const text = record.content;
  const content =
    notes.length === 0 ? text : typeof text === 'string' && text !== '' ? `${text}\n${notes.join('\n')}` : notes.join('\n');
  return [{ ...record, content, images }];
}

/** An image block written by reference (one with its data inline is read as it is). */
function isImageRef(block: unknown): block is Record<string, unknown> {
  if (block === null || typeof block !== 'object') return false;
  const record = block as Record<string, unknown>;
  return record.type === 'image' && 'ref' in record && typeof record.data !== 'string';
}

/** A block that is, or (a tool result) holds, an image reference. */
function holdsRef(block: unknown): boolean {
  if (isImageRef(block)) return true;
  if (block === null || typeof block !== 'object') return false;
  const { type, images } = block as { type?: unknown; images?: unknown };
  return type === 'tool_result' && Array.isArray(images) && images.some(isImageRef);
}

/** The stored type when it looks like one (a hand edit may put anything there), else just "image". */
function shownType(mediaType: unknown): string {
  return typeof mediaType === 'string' && /^image\/[a-z0-9.+-]{1,20}$/.test(mediaType) ? mediaType : 'image';
}

/** The base64 stored under `ref` (a checked hash), or why it cannot be had. */
function readBlob(dir: string, ref: string): { data: string } | { why: string } {
  const file = path.join(dir, `${ref}.b64`);
  const shown = `images/${ref}.b64`;
  try {
    // Never followed: whatever a link points at is not this session's to read.
    if (lstatSync(file).isSymbolicLink()) return { why: `${shown} is a symbolic link, not the image file` };
    const got = readRegularFileNow(file, MAX_IMAGE_BASE64);
    if (got === undefined) return { why: `${shown} is larger than any image outrider sends` };
    if (!got.ok) return { why: got.reason === 'missing' ? `${shown} is missing` : `${shown} is not a regular file` };
    if (sha256(got.bytes) !== ref) return { why: `${shown} does not hold the image it is named for (it was changed)` };
    return { data: got.bytes.toString('utf8') };
  } catch (error) {
    if (isMissing(error)) return { why: `${shown} is missing` };
    return { why: `${shown} could not be read (${errnoCode(error) ?? String(error)})` };
  }
}
