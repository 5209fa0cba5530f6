import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { draftBlock } from '../providers/normalize.js';
import { type ReadRecord, readTranscriptHead } from './transcript.js';
import { errnoCode } from '../platform/fs-errors.js';
import { oneLine } from '../platform/text.js';

/** The files of one session folder. */
export interface SessionPaths {
  dir: string;
  transcript: string;
  /** Sub-agent transcripts: `agents/sub-N.jsonl`. */
  agentsDir: string;
}

/** One stored session as a listing shows it. */
export interface SessionSummary {
  id: string;
  paths: SessionPaths;
  cwd: string;
  provider: string;
  model: string;
  /** ISO times: from the meta record, and the transcript's last write. */
  createdAt: string;
  updatedAt: string;
  /** The first thing the user typed, on one line, at most 80 characters ('' if none yet). */
  firstPrompt: string;
}

/** No session, or more than one, answers to an id or prefix. */
export class SessionLookupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionLookupError';
  }
}

/**
 * A new session's id: a UUID (version 7), as Claude Code's session ids are UUIDs and programs
 * written for it (the Agent SDK) pass them back; its first 48 bits are the time in
 * milliseconds, so ids still sort by creation. Older sessions keep their `20261202-112233-k3x9qa`.
 */
export function newSessionId(now: Date = new Date()): string {
  const bytes = randomBytes(16);
  const ms = BigInt(now.getTime());
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function sessionPaths(sessionsDir: string, id: string): SessionPaths {
  const dir = path.join(sessionsDir, id);
  return { dir, transcript: path.join(dir, 'transcript.jsonl'), agentsDir: path.join(dir, 'agents') };
}

/** The transcript path of sub-agent `jobId` (e.g. `sub-3`) in a session folder. */
export function agentTranscriptPath(paths: SessionPaths, jobId: string): string {
  return path.join(paths.agentsDir, `${jobId}.jsonl`);
}

/** Creates the session's folder, private to the user: transcripts hold code and conversation. */
export function createSessionFolder(sessionsDir: string, id: string): SessionPaths {
  const paths = sessionPaths(sessionsDir, id);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  return paths;
}

/**
 * Stored sessions, most recently written first; with `cwd`, only those started in that
 * directory. Folders without a readable transcript are left out.
 */
export function listSessions(sessionsDir: string, options: { cwd?: string } = {}): SessionSummary[] {
  const sessions = sessionIds(sessionsDir)
    .map((id) => summarize(sessionsDir, id))
    .filter((s): s is SessionSummary => s !== undefined)
    .filter((s) => options.cwd === undefined || sameDirectory(s.cwd, options.cwd));
  return sessions.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.id.localeCompare(a.id));
}

/** The session `--continue` resumes: the most recently written one started in `cwd`. */
export function newestSessionFor(sessionsDir: string, cwd: string): SessionSummary | undefined {
  return listSessions(sessionsDir, { cwd })[0];
}

/** The session whose id is `idOrPrefix`, or the only one it prefixes; throws a one-line error otherwise. */
export function findSession(sessionsDir: string, idOrPrefix: string): SessionSummary {
  const wanted = idOrPrefix.trim();
  const ids = sessionIds(sessionsDir);
  const matches = ids.includes(wanted) ? [wanted] : wanted === '' ? [] : ids.filter((id) => id.startsWith(wanted));
  if (matches.length === 0) {
    throw new SessionLookupError(
      `no session "${idOrPrefix}" in ${sessionsDir}; see ${sessionsDir} for the sessions stored there`,
    );
  }
  if (matches.length > 1) {
    const shown = matches.sort().reverse().slice(0, 5).join(', ');
    const more = matches.length > 5 ? `, and ${matches.length - 5} more` : '';
    throw new SessionLookupError(`"${idOrPrefix}" matches ${matches.length} sessions (${shown}${more}); give more of the id`);
  }
  const summary = summarize(sessionsDir, matches[0]);
  if (!summary) {
    const file = sessionPaths(sessionsDir, matches[0]).transcript;
    if (isEmptyFile(file)) {
      throw new SessionLookupError(
        `session ${matches[0]} cannot be resumed: its transcript ${file} is empty (the session ended before it recorded anything); start a new session without --resume`,
      );
    }
    throw new SessionLookupError(`session ${matches[0]} has no readable transcript (${file}); start a new session instead`);
  }
  return summary;
}

/**
 * The newest transcript of all, when it is empty: an empty file names no directory, so
 * `--continue` cannot match it, and says so rather than "no earlier session".
 */
export function newestEmptyTranscript(sessionsDir: string): string | undefined {
  let newest: { file: string; mtime: number } | undefined;
  for (const id of sessionIds(sessionsDir)) {
    const file = sessionPaths(sessionsDir, id).transcript;
    try {
      const mtime = statSync(file).mtimeMs;
      if (!newest || mtime > newest.mtime) newest = { file, mtime };
    } catch {
      // Gone since the listing: not the newest of anything.
    }
  }
  return newest && isEmptyFile(newest.file) ? newest.file : undefined;
}

/** Folder names that hold a transcript file. */
function sessionIds(sessionsDir: string): string[] {
  let entries;
  try {
    entries = readdirSync(sessionsDir, { withFileTypes: true });
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
  return entries.filter((e) => e.isDirectory() && isFile(sessionPaths(sessionsDir, e.name).transcript)).map((e) => e.name);
}

function summarize(sessionsDir: string, id: string): SessionSummary | undefined {
  const paths = sessionPaths(sessionsDir, id);
  let head;
  let mtime: Date;
  try {
    mtime = statSync(paths.transcript).mtime;
    head = readTranscriptHead(paths.transcript, isUserPrompt);
  } catch {
    return undefined;
  }
  const { meta, found } = head;
  if (!meta) return undefined;
  const prompt = found?.type === 'message' ? promptText(found.message) : '';
  return {
    id,
    paths,
    cwd: meta.cwd,
    provider: meta.provider,
    model: meta.model,
    createdAt: meta.createdAt,
    updatedAt: mtime.toISOString(),
    firstPrompt: oneLine(prompt, 80),
  };
}

/** A message the user typed: a user message with text and no tool results. */
function isUserPrompt(record: ReadRecord): boolean {
  if (record.type !== 'message' || (record.message as { role?: unknown }).role !== 'user') return false;
  const blocks = userBlocks(record.message);
  return blocks.some((b) => b.type === 'text') && !blocks.some((b) => b.type === 'tool_result');
}

function promptText(message: unknown): string {
  return userBlocks(message)
    .map((b) => (b.type === 'text' ? b.text : ''))
    .join(' ');
}

/** The valid blocks of a message as written (the listing reads transcripts it has not repaired). */
function userBlocks(message: unknown) {
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return [{ type: 'text' as const, text: content }];
  return Array.isArray(content) ? content.map(draftBlock).filter((b) => b !== undefined) : [];
}

/** Empty, or only blank lines: nothing was ever recorded. */
function isEmptyFile(file: string): boolean {
  try {
    const { size } = statSync(file);
    return size === 0 || (size <= 4096 && readFileSync(file, 'utf8').trim() === '');
  } catch {
    return false;
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function sameDirectory(a: string, b: string): boolean {
  return path.resolve(a) === path.resolve(b) || realOrSelf(a) === realOrSelf(b);
}

function realOrSelf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}
