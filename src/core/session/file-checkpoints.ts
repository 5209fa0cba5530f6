import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../platform/atomic-write.js';
import type { Workspace } from '../platform/paths.js';
import { type CheckpointRecord, CheckpointLogWriter, readCheckpointLog } from './checkpoint-log.js';
import { type FileState, readFileState, sha256, stateHash } from './file-state.js';

/** Prior contents larger than this are not kept: the file is named as not restorable instead. */
export const CHECKPOINT_MAX_BYTES = 2 * 1024 * 1024;

export interface FileCheckpointsOptions {
  /** The session's folder: the checkpoints go in its `checkpoints/`. */
  sessionDir: string;
  /** The parent's workspace: an edit made in another (an isolated job's worktree) is not its to record. */
  workspace: Workspace;
  maxBytes?: number;
  /** Told once when the checkpoints cannot be written: the edits go on, unrecorded. */
  warn?: (text: string) => void;
  now?: () => Date;
}

/** A prompt the log knows, by number, with its text's hash. */
export interface CheckpointPoint {
  n: number;
  hash: string;
}

/** A file as it was before the agent first changed it from some prompt on: what a rewind puts back. */
export interface FileCheckpoint {
  path: string;
  /** The prompt during which that first change was made. */
  n: number;
  /** Its bytes' blob and mode, or null when there was no file; `tooLarge`: no copy was kept. */
  before: { blob: string | null; mode?: number } | { tooLarge: number };
}

/** What `capture` saw before an edit, for `settle` after it. */
export interface Capture {
  path: string;
  n: number;
  /** Undefined when the file's state before prompt `n` is already kept. */
  before?: FileState;
}

interface State {
  /** The newest prompt's number: edits are filed under it. */
  current: number;
  /** The prompts still in the conversation (a rewind takes the later ones out), oldest first. */
  points: CheckpointPoint[];
  /** `before` and `too-large` records, oldest first. */
  kept: FileCheckpoint[];
  /** `n\0path` of each file already kept for prompt n. */
  filed: Set<string>;
  /** What each file held after the agent's last edit or restore (its hash, null for none). */
  known: Map<string, string | null>;
}

/**
 * The files the agent changed, kept as they were before each prompt changed them: a file's
 * content before its first change during a prompt (or that there was none) goes to a blob named
 * by its SHA-256 (`checkpoints/blobs/`, 0600), and a line of the log says so. Read back from the
 * log when a resumed session first needs it. Nothing here ever fails an edit: a store that
 * cannot be written says so once and records no more.
 */
export class FileCheckpoints {
  readonly dir: string;
  readonly maxBytes: number;
  private state: State | undefined;
  private readonly log: CheckpointLogWriter;
  /** Prompts of this run by their message: a resumed history is matched by hash instead. */
  private readonly byMessage = new WeakMap<object, number>();
  private broken = false;

  constructor(private readonly options: FileCheckpointsOptions) {
    this.dir = path.join(options.sessionDir, 'checkpoints');
    this.maxBytes = options.maxBytes ?? CHECKPOINT_MAX_BYTES;
    this.log = new CheckpointLogWriter(path.join(this.dir, 'log.jsonl'));
  }

  get workspace(): Workspace {
    return this.options.workspace;
  }

  /** Whether an edit made in `workspace` is the parent's checkout's (not an isolated job's worktree). */
  covers(workspace: Workspace): boolean {
    return !this.broken && workspace.root === this.options.workspace.root;
  }

  /** The prompt `message` (whose text is `text`) joined the history: edits from now on are filed under it. */
  prompt(message: object, text: string): void {
    const state = this.load();
    if (!state) return;
    const n = state.current + 1;
    const hash = sha256(text);
    if (!this.write({ type: 'prompt', n, hash, at: (this.options.now?.() ?? new Date()).toISOString() })) return;
    state.current = n;
    state.points.push({ n, hash });
    this.byMessage.set(message, n);
  }

  /** The number of a prompt of this run, by its message. */
  pointOf(message: object): number | undefined {
    return this.byMessage.get(message);
  }

  /** The prompts still in the conversation, oldest first. */
  points(): readonly CheckpointPoint[] {
    return this.load()?.points ?? [];
  }

  /** Every file changed from prompt `n` on, as it was before its first change: one per file, oldest change first. */
  changesSince(n: number): FileCheckpoint[] {
    const seen = new Set<string>();
    return (this.load()?.kept ?? []).filter((kept) => kept.n >= n && !seen.has(kept.path) && seen.add(kept.path));
  }

  /** What `file` held after the agent's last edit or restore: its hash, null for none, undefined when unknown. */
  expected(file: string): string | null | undefined {
    return this.load()?.known.get(file);
  }

  /** A kept blob's bytes, checked against its name; undefined when it is missing or damaged. */
  blob(hash: string): Buffer | undefined {
    try {
      const bytes = readFileSync(this.blobPath(hash));
      return sha256(bytes) === hash ? bytes : undefined;
    } catch {
      return undefined;
    }
  }

  /** Before an edit of `file` (a real path): what it holds, unless it was kept for this prompt already. */
  async capture(file: string, signal: AbortSignal): Promise<Capture | undefined> {
    const state = this.load();
    if (!state || this.broken) return undefined;
    const n = state.current;
    if (state.filed.has(`${n}\0${file}`)) return { path: file, n };
    try {
      return { path: file, n, before: await readFileState(file, this.maxBytes, signal) };
    } catch {
      // Unreadable now: the tool will say why; nothing to keep.
      return undefined;
    }
  }

  /** After the edit: its prior state is kept when the file changed, and what it holds now is noted. */
  async settle(capture: Capture): Promise<void> {
    const state = this.load();
    if (!state || this.broken) return;
    let after: FileState;
    try {
      after = await readFileState(capture.path, this.maxBytes, new AbortController().signal);
    } catch {
      return;
    }
    const now = stateHash(after);
    const { before, n, path: file } = capture;
    const key = `${n}\0${file}`;
    if (before && before.kind !== 'other' && stateHash(before) !== now && !state.filed.has(key)) {
      const kept = this.keep(n, file, before);
      if (!kept) return;
      state.kept.push(kept);
      state.filed.add(key);
    }
    if (now !== undefined && state.known.get(file) !== now && this.write({ type: 'after', path: file, hash: now })) {
      state.known.set(file, now);
    }
  }

  /** The conversation went back to before prompt `n`: it and the later ones are no longer rewind points. */
  rewound(n: number): void {
    const state = this.load();
    if (!state || !this.write({ type: 'rewind', n })) return;
    state.points = state.points.filter((point) => point.n < n);
  }

  /** A rewind wrote `file` back: what it holds now (its hash, null when it was deleted). */
  restored(file: string, hash: string | null): void {
    const state = this.load();
    if (state && this.write({ type: 'after', path: file, hash })) state.known.set(file, hash);
  }

  private keep(n: number, file: string, before: Exclude<FileState, { kind: 'other' }>): FileCheckpoint | undefined {
    if (before.kind === 'large') {
      const ok = this.write({ type: 'too-large', n, path: file, size: before.size });
      return ok ? { path: file, n, before: { tooLarge: before.size } } : undefined;
    }
    if (before.kind === 'absent') {
      return this.write({ type: 'before', n, path: file, blob: null }) ? { path: file, n, before: { blob: null } } : undefined;
    }
    try {
      this.writeBlob(before.hash, before.bytes);
    } catch (error) {
      this.fail(error);
      return undefined;
    }
    const record: CheckpointRecord = { type: 'before', n, path: file, blob: before.hash, mode: before.mode };
    return this.write(record) ? { path: file, n, before: { blob: before.hash, mode: before.mode } } : undefined;
  }

  private blobPath(hash: string): string {
    return path.join(this.dir, 'blobs', hash);
  }

  /** Content-addressed: a blob already there is the same bytes. Written under a temporary name, then renamed. */
  private writeBlob(hash: string, bytes: Buffer): void {
    const file = this.blobPath(hash);
    if (existsSync(file)) return;
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileAtomicSync(file, bytes, { mode: 0o600 });
  }

  private write(record: CheckpointRecord): boolean {
    if (this.broken) return false;
    try {
      this.log.append(record);
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  private fail(error: unknown): void {
    if (this.broken) return;
    this.broken = true;
    const why = error instanceof Error ? error.message : String(error);
    this.options.warn?.(
      `file checkpoints stopped (${why}): /rewind cannot put back files changed from now on; check that ${this.dir} is writable`,
    );
  }

  /** The log read back once, on first need (a resumed session's earlier prompts and edits). */
  private load(): State | undefined {
    if (this.state || this.broken) return this.state;
    let read;
    try {
      read = readCheckpointLog(path.join(this.dir, 'log.jsonl'));
    } catch (error) {
      this.fail(error);
      return undefined;
    }
    const state: State = { current: 0, points: [], kept: [], filed: new Set(), known: new Map() };
    for (const record of read.records) fold(state, record);
    if (read.skipped > 0) {
      this.options.warn?.(`${read.skipped} unreadable line(s) of ${path.join(this.dir, 'log.jsonl')} skipped`);
    }
    this.state = state;
    return state;
  }
}

/** One record of the log applied to the state it was written from. */
function fold(state: State, record: CheckpointRecord): void {
  switch (record.type) {
    case 'prompt':
      state.current = Math.max(state.current, record.n);
      state.points.push({ n: record.n, hash: record.hash });
      return;
    case 'before':
      state.kept.push({
        path: record.path,
        n: record.n,
        before: { blob: record.blob, ...(record.mode !== undefined ? { mode: record.mode } : {}) },
      });
      state.filed.add(`${record.n}\0${record.path}`);
      state.known.set(record.path, record.blob);
      return;
    case 'too-large':
      state.kept.push({ path: record.path, n: record.n, before: { tooLarge: record.size } });
      state.filed.add(`${record.n}\0${record.path}`);
      return;
    case 'after':
      state.known.set(record.path, record.hash);
      return;
    case 'rewind':
      state.points = state.points.filter((point) => point.n < record.n);
      return;
  }
}
