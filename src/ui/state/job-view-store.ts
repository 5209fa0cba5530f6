import type { SessionEvent } from '../../core/index.js';
import { type JobTranscript, applyJobTranscriptEvent } from './job-transcript.js';
import type { Entry, JobFacts, LiveTool } from './transcript.js';

/** One finished entry drawn as terminal lines at a width, as the main chat draws it. */
export type EntryLines = (entry: Entry, width: number) => string[];
/** What is live (text streaming in, tools running) drawn as terminal lines. */
export type LiveLines = (live: { text: string; tools: readonly LiveTool[] }, width: number) => string[];

/** What the job view's body shows now. */
export interface JobBody {
  /** The lines in view, top to bottom. */
  lines: readonly string[];
  /** Lines scrolled back from the live end: 0 follows it. */
  offset: number;
  /** The first line in view is the transcript's first. */
  atTop: boolean;
  /** Lines that came in below while it was scrolled back. */
  unseen: number;
}

/** One item of a batch: a session event, or the job's stored history read again. */
export type JobFeedItem = { kind: 'event'; event: SessionEvent } | { kind: 'reset'; transcript: JobTranscript };

export interface JobViewStoreOptions {
  entryLines: EntryLines;
  liveLines: LiveLines;
  /** The body's size: columns, and rows of lines in view. */
  width: number;
  height: number;
  /** What the transcript reducer asks about the session's jobs (paths' root, nested jobs). */
  facts?: () => JobFacts;
}

/**
 * The opened job's transcript and the window of it in view. Entries are drawn to lines once
 * each (by identity, then by content, so a history read again costs nothing for what it
 * repeats), from the live end back as far as the window needs: a long transcript opens at the
 * bottom without drawing what is above. Drawing happens here, outside React's renders, when a
 * batch arrives or a key scrolls; the component only shows `snapshot().lines`.
 */
export class JobViewStore {
  private state: JobTranscript;
  private width: number;
  private height: number;
  private offset = 0;
  private unseen = 0;
  private live: string[] = [];
  private drawn = new WeakMap<Entry, string[]>();
  private byContent = new Map<string, string[]>();
  private body: JobBody = { lines: [], offset: 0, atTop: true, unseen: 0 };
  private readonly listeners = new Set<() => void>();

  constructor(
    initial: JobTranscript,
    private readonly options: JobViewStoreOptions,
  ) {
    this.state = initial;
    this.width = Math.max(1, options.width);
    this.height = Math.max(1, options.height);
    this.live = this.drawLive();
    this.layout();
  }

  readonly snapshot = (): JobBody => this.body;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** The transcript as it stands (its entries and live part). */
  transcript(): JobTranscript {
    return this.state;
  }

  /** The size the lines are drawn for. */
  size(): { width: number; height: number } {
    return { width: this.width, height: this.height };
  }

  /** Applies a batch in order; scrolled back, the lines in view stay where they are. */
  apply(items: readonly JobFeedItem[]): void {
    const before = this.state.transcript;
    let reset = false;
    for (const item of items) {
      if (item.kind === 'reset') {
        this.state = item.transcript;
        reset = true;
      } else {
        this.state = applyJobTranscriptEvent(this.state, item.event, this.options.facts?.());
      }
    }
    const after = this.state.transcript;
    if (after === before) return;
    const liveBefore = this.live.length;
    if (after.liveText !== before.liveText || after.tools !== before.tools || reset) this.live = this.drawLive();
    if (this.offset > 0) {
      const appended = !reset && after.entries.length >= before.entries.length;
      const added = appended
        ? after.entries.slice(before.entries.length).reduce((n, entry) => n + this.linesOf(entry).length, 0) +
          this.live.length -
          liveBefore
        : 0;
      this.offset = Math.max(0, this.offset + added);
      this.unseen += Math.max(0, added);
    }
    this.layout();
    this.emit();
  }

  /** Scrolls back (`lines` > 0) or towards the live end. */
  scroll(lines: number): void {
    this.offset = Math.max(0, this.offset + lines);
    if (this.offset === 0) this.unseen = 0;
    this.layout();
    this.emit();
  }

  /** A screen back (`1`) or on (`-1`), one line of the last screen kept in view. */
  page(direction: 1 | -1): void {
    this.scroll(direction * Math.max(1, this.height - 1));
  }

  /** Back to the live end, following it. */
  follow(): void {
    this.offset = 0;
    this.unseen = 0;
    this.layout();
    this.emit();
  }

  /** To the transcript's first line. */
  top(): void {
    this.scroll(Number.MAX_SAFE_INTEGER);
  }

  /** A new size: at a new width every entry is drawn again (as it comes into view). */
  resize(width: number, height: number): void {
    const w = Math.max(1, width);
    const h = Math.max(1, height);
    if (w === this.width && h === this.height) return;
    if (w !== this.width) {
      this.drawn = new WeakMap();
      this.byContent = new Map();
      this.width = w;
      this.live = this.drawLive();
    }
    this.height = h;
    this.layout();
    this.emit();
  }

  private drawLive(): string[] {
    const { liveText, tools } = this.state.transcript;
    return liveText || tools.length ? this.options.liveLines({ text: liveText, tools }, this.width) : [];
  }

  private linesOf(entry: Entry): string[] {
    const known = this.drawn.get(entry);
    if (known) return known;
    const { id: _id, ...body } = entry;
    const key = JSON.stringify(body);
    const lines = this.byContent.get(key) ?? this.options.entryLines(entry, this.width);
    this.byContent.set(key, lines);
    this.drawn.set(entry, lines);
    return lines;
  }

  /** The window: from the live end back `offset` lines, `height` lines tall, never above the first line. */
  private layout(): void {
    const want = this.offset + this.height;
    const chunks: string[][] = [this.live];
    let count = this.live.length;
    const { entries } = this.state.transcript;
    let next = entries.length - 1;
    for (; next >= 0 && count < want; next -= 1) {
      const lines = this.linesOf(entries[next]!);
      chunks.push(lines);
      count += lines.length;
    }
    const all = chunks.reverse().flat();
    if (next < 0) this.offset = Math.min(this.offset, Math.max(0, all.length - this.height));
    if (this.offset === 0) this.unseen = 0;
    const end = all.length - this.offset;
    const start = Math.max(0, end - this.height);
    this.body = { lines: all.slice(start, end), offset: this.offset, atTop: next < 0 && start === 0, unseen: this.unseen };
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
