import type { TurnParticipant } from '../loop/turn-participant.js';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Message } from '../providers/types.js';
import { errnoCode } from '../platform/fs-errors.js';
import { MIN_SECRET_LENGTH, PROVIDER_KEY_VARIABLES } from '../config/key-variables.js';
import { REDACTED, scrubForms, secretForms } from '../platform/secret-forms.js';
import { type StoredMessage, TranscriptImages, imagesDirOf, resolveImages } from './transcript-images.js';

/** The first line of every transcript. The lineage fields are set on sub-agent transcripts. */
export interface TranscriptMeta {
  type: 'meta';
  version: 1;
  sessionId: string;
  cwd: string;
  provider: string;
  model: string;
  /** ISO time. */
  createdAt: string;
  parentSessionId?: string;
  jobId?: string;
  definition?: string;
  task?: string;
}

/** One line of a transcript. */
export type TranscriptRecord =
  | TranscriptMeta
  | { type: 'message'; message: StoredMessage; at: string }
  /** `summary` replaced every message but the last `keptMessages`; nothing was deleted from disk. */
  | { type: 'compaction'; summary: Message; keptMessages: number; removedMessages: number; at: string }
  /** `/rewind` took the last `removedMessages` messages back; nothing was deleted from disk. */
  | { type: 'rewind'; removedMessages: number; at: string }
  | { type: 'event'; name: string; data?: unknown; at: string };

/**
 * A record as read back. Message contents are not trusted: a crash, a hand edit or another
 * version may have left anything there; `repairHistory` (repair-history.ts) makes them valid.
 */
export type ReadRecord =
  | TranscriptMeta
  | { type: 'message'; message: unknown; at: string }
  | { type: 'compaction'; summary: unknown; keptMessages: number; removedMessages: number; at: string }
  | { type: 'rewind'; removedMessages: number; at: string }
  | { type: 'event'; name: string; data?: unknown; at: string };

export const TRANSCRIPT_VERSION = 1;

/** What the caller gives to start a transcript; the type, version and (by default) the time are filled in. */
export type NewTranscriptMeta = Omit<TranscriptMeta, 'type' | 'version' | 'createdAt'> & { createdAt?: string };

export interface TranscriptWriterOptions {
  /** Where a failed write goes; without it, the write throws. */
  onError?: (error: Error) => void;
  /** The environment whose API keys are redacted (tests pass their own). */
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
}

/** Closes the file of a writer nobody closed once it is collected (a sub-agent's, dropped at its end). */
const unclosed = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

/**
 * Appends records to a JSONL transcript, one synchronous write per line, so a crash
 * loses at most the record being written. The file is opened once, for appending, on the
 * first write (a failed open is retried by the next one) and stays open until `close()`:
 * a record costs one write, never a rewrite. Opening an existing transcript (a resumed
 * session) appends to it without a second meta line.
 */
export class TranscriptWriter {
  readonly meta: TranscriptMeta;
  /** The API key variables' values in every form the redaction looks for. */
  private readonly secretForms: readonly string[];
  private readonly now: () => Date;
  private readonly images: TranscriptImages;
  private fd: number | undefined;

  constructor(
    readonly path: string,
    meta: NewTranscriptMeta,
    private readonly options: TranscriptWriterOptions = {},
  ) {
    this.secretForms = keyVariableForms(options.env ?? process.env);
    this.now = options.now ?? (() => new Date());
    this.images = new TranscriptImages(imagesDirOf(path), (text) => redactSecrets(text, this.secretForms), options.onError);
    this.meta = { type: 'meta', version: TRANSCRIPT_VERSION, ...meta, createdAt: meta.createdAt ?? this.now().toISOString() };
    this.guard(() => {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      const ending = lastByte(this.path);
      if (ending === undefined) this.write(this.meta);
      // A line cut by a crash must stay alone on its line, or the next record would be glued to it.
      else if (ending !== '\n') this.writeText('\n');
    });
  }

  append(message: Message): void {
    this.guard(() => this.write({ type: 'message', message: this.images.stored(message), at: this.at() }));
  }

  /** Records a compaction; call it after every message it covers was appended. */
  compaction(record: { summary: Message; keptMessages: number; removedMessages: number }): void {
    // Only these fields: a CompactResult passed whole must not copy its history into the line.
    const { summary, keptMessages, removedMessages } = record;
    this.guard(() => this.write({ type: 'compaction', summary, keptMessages, removedMessages, at: this.at() }));
  }

  /** Records that the conversation went back: its last `removedMessages` messages are no longer in it. */
  rewind(removedMessages: number): void {
    this.guard(() => this.write({ type: 'rewind', removedMessages, at: this.at() }));
  }

  event(name: string, data?: unknown): void {
    const at = this.at();
    this.guard(() => this.write(data === undefined ? { type: 'event', name, at } : { type: 'event', name, data, at }));
  }

  /** Closes the file; a later record opens it again. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    unclosed.unregister(this);
    this.guard(() => closeSync(fd));
  }

  private at(): string {
    return this.now().toISOString();
  }

  private write(record: TranscriptRecord): void {
    this.writeText(`${redactSecrets(JSON.stringify(record), this.secretForms)}\n`);
  }

  private writeText(text: string): void {
    if (this.fd === undefined) {
      // O_APPEND: every write lands at the end, whoever else appended since.
      this.fd = openSync(this.path, 'a', 0o600);
      unclosed.register(this, this.fd, this);
    }
    const bytes = Buffer.from(text, 'utf8');
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done);
  }

  private guard(action: () => void): void {
    try {
      action();
    } catch (error) {
      if (!this.options.onError) throw error;
      this.options.onError(error as Error);
    }
  }
}

/** A transcript replayed: the history as it stood when the file ends, and what could not be read. */
export interface ReadTranscript {
  meta: TranscriptMeta;
  /** The messages as written (not checked): pass them through `repairHistory` before use. */
  history: unknown[];
  /** `messageCount`: how many messages the history held when the event was written (what came after it); `takenBack`: /rewind took those messages back. */
  events: { name: string; data?: unknown; at: string; messageCount: number; takenBack?: true }[];
  /**
   * Every message that carried a completion notice, compacted away or not, with the byte offset
   * its line starts at: a resumed session tells a notice sent after a job's end from one before.
   */
  notices: { jobIds: string[]; offset: number }[];
  /** 1-based numbers of lines that were skipped. */
  skippedLines: number[];
  /** One sentence per skipped line, for the user. */
  warnings: string[];
}

/** A file that is not a transcript outrider can read at all. */
export class TranscriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptError';
  }
}

/**
 * Replays a transcript: messages in order, each compaction replacing all but its kept
 * messages with its summary. Unreadable lines are skipped and reported, so a file cut
 * by a crash still restores everything before the cut.
 */
export function readTranscript(file: string): ReadTranscript {
  const lines = readFileSync(file, 'utf8').split('\n');
  // Text after the last newline is a line whose write never finished (or, rarely, finished but for its newline).
  const unterminated = lines.pop() ?? '';
  const numbered = lines.map((line, index) => ({ line, number: index + 1, last: false }));
  if (unterminated !== '') numbered.push({ line: unterminated, number: lines.length + 1, last: true });
  // Where each line starts in the file; the text was decoded from UTF-8, so its bytes count again.
  let offset = 0;
  const notices: ReadTranscript['notices'] = [];

  let meta: TranscriptMeta | undefined;
  let history: unknown[] = [];
  const events: ReadTranscript['events'] = [];
  const skippedLines: number[] = [];
  const warnings: string[] = [];
  const skip = (number: number, why: string) => {
    skippedLines.push(number);
    warnings.push(`line ${number} ${why}`);
  };

  for (const { line, number, last } of numbered) {
    const start = offset;
    offset += Buffer.byteLength(line, 'utf8') + 1;
    if (line.trim() === '') continue;
    const record = parseRecord(line);
    if (!record) {
      skip(
        number,
        last
          ? 'was cut short (the program probably crashed while writing it); everything before it was restored'
          : 'is not a readable transcript record; it was skipped',
      );
      continue;
    }
    if (!meta) {
      if (record.type !== 'meta') {
        throw new TranscriptError(`${file} is not an outrider transcript: it does not start with a meta record`);
      }
      // A file from another outrider may carry any version: read it as data, not as the type says.
      const version: unknown = record.version;
      if (version !== TRANSCRIPT_VERSION) {
        throw new TranscriptError(
          `${file} was written by transcript version ${String(version)}; this outrider reads version ${String(TRANSCRIPT_VERSION)} (upgrade outrider to read it)`,
        );
      }
      meta = record;
      continue;
    }
    switch (record.type) {
      case 'meta':
        skip(number, 'is a second meta record; it was skipped');
        break;
      case 'message': {
        history.push(record.message);
        const jobIds = noticeIds(record.message);
        if (jobIds) notices.push({ jobIds, offset: start });
        break;
      }
      case 'compaction':
        history = [record.summary, ...(record.keptMessages > 0 ? history.slice(-record.keptMessages) : [])];
        break;
      case 'rewind':
        history = history.slice(0, Math.max(0, history.length - record.removedMessages));
        // Events about the messages taken back (a turn's end) are marked, not dropped: what they say of the session (usage spent, a model switch) stays true.
        for (const event of events) if (event.messageCount > history.length) event.takenBack = true;
        break;
      case 'event':
        events.push({
          name: record.name,
          at: record.at,
          messageCount: history.length,
          ...(record.data === undefined ? {} : { data: record.data }),
        });
        break;
    }
  }
  if (!meta) {
    throw new TranscriptError(`${file} is not a readable outrider transcript: it has no meta record (it may be empty)`);
  }
  return { meta, history: resolveImages(history, imagesDirOf(file), warnings), events, notices, skippedLines, warnings };
}

/** The job ids a message's completion notice names (`noticeFor`), when it is one. */
function noticeIds(message: unknown): string[] | undefined {
  const ids = (message as { noticeFor?: unknown }).noticeFor;
  return Array.isArray(ids) && ids.length > 0 && ids.every((id) => typeof id === 'string') ? (ids as string[]) : undefined;
}

/**
 * The meta record and the first lines of a transcript, read no further than needed:
 * listing sessions must not load every whole transcript.
 */
export function readTranscriptHead(
  file: string,
  wanted: (record: ReadRecord) => boolean,
): { meta: TranscriptMeta | undefined; found: ReadRecord | undefined } {
  const fd = openSync(file, 'r');
  try {
    let meta: TranscriptMeta | undefined;
    let pending = '';
    // The decoder holds back a character split across two chunks.
    const decoder = new StringDecoder('utf8');
    const chunk = Buffer.alloc(64 * 1024);
    let position = 0;
    for (;;) {
      const bytes = readSync(fd, chunk, 0, chunk.length, position);
      position += bytes;
      pending += bytes === 0 ? decoder.end() : decoder.write(chunk.subarray(0, bytes));
      const lines = pending.split('\n');
      pending = bytes === 0 ? '' : (lines.pop() ?? '');
      for (const line of lines) {
        const record = parseRecord(line);
        if (!record) continue;
        if (!meta) {
          if (record.type !== 'meta') return { meta: undefined, found: undefined };
          meta = record;
        } else if (wanted(record)) {
          return { meta, found: record };
        }
      }
      if (bytes === 0) return { meta, found: undefined };
    }
  } finally {
    closeSync(fd);
  }
}

/** Names the last byte of a file: undefined when it is missing or empty. */
function lastByte(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return undefined;
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, size - 1);
    return byte.toString('latin1');
  } finally {
    closeSync(fd);
  }
}

function parseRecord(line: string): ReadRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isRecord(value) ? value : undefined;
}

function isRecord(value: unknown): value is ReadRecord {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  switch (record.type) {
    case 'meta':
      return typeof record.sessionId === 'string' && typeof record.version === 'number';
    case 'message':
      return isObject(record.message);
    case 'compaction':
      return isObject(record.summary) && Number.isInteger(record.keptMessages) && (record.keptMessages as number) >= 0;
    case 'rewind':
      return Number.isInteger(record.removedMessages) && (record.removedMessages as number) >= 0;
    case 'event':
      return typeof record.name === 'string';
    default:
      return false;
  }
}

/** A message record only has to hold an object: what is in it is repairHistory's to judge. */
function isObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Anthropic (`sk-ant-…`) and OpenAI (`sk-…`, `sk-proj-…`) key shapes; the lookbehind spares words like "task-…". */
const KEY_SHAPE = /(?<![A-Za-z0-9_-])sk-(?:ant-)?[A-Za-z0-9_-]{20,}/g;

/** Anything shaped like an API key replaced with `[redacted]`. */
export function redactKeyShapes(text: string): string {
  return text.replace(KEY_SHAPE, REDACTED);
}

/** The values of the API key variables (8 characters or more) in every form the scrubber knows (secret-forms.ts). */
export function keyVariableForms(env: NodeJS.ProcessEnv): string[] {
  const values = PROVIDER_KEY_VARIABLES.map((name) => env[name]?.trim() ?? '').filter((v) => v.length >= MIN_SECRET_LENGTH);
  return [...new Set(values.flatMap(secretForms))].sort((a, b) => b.length - a.length);
}

/**
 * Replaces anything shaped like an API key, and each of `forms` (keyVariableForms: the key
 * variables' values escaped in JSON, base64, hex, URL-encoded), with `[redacted]`. Every
 * transcript line passes here.
 */
export function redactSecrets(text: string, forms: readonly string[]): string {
  return scrubForms(redactKeyShapes(text), forms);
}

/** The transcript's part in the parent's turns: every message, as it joins the history. */
export function transcriptParticipant(transcript: TranscriptWriter): TurnParticipant {
  return { name: 'transcript', messageAppended: (message) => transcript.append(message) };
}
