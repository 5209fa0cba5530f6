import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';

/** Prompts kept per project. */
export const HISTORY_MAX = 500;

/**
 * The prompts sent before, for ↑/↓: older with ↑, back down to the draft with ↓. The draft
 * being typed is kept while the user looks back.
 */
export class PromptHistory {
  private entries: string[];
  private index: number;
  private draft = '';

  constructor(entries: readonly string[] = []) {
    this.entries = entries.slice(-HISTORY_MAX);
    this.index = this.entries.length;
  }

  /** The entry before the one shown, or undefined at the oldest. `current` is the input as it is now. */
  older(current: string): string | undefined {
    if (this.index === 0) return undefined;
    if (this.index === this.entries.length) this.draft = current;
    this.index -= 1;
    return this.entries[this.index];
  }

  /** The entry after the one shown (the draft after the newest), or undefined when already at the draft. */
  newer(): string | undefined {
    if (this.index >= this.entries.length) return undefined;
    this.index += 1;
    return this.index === this.entries.length ? this.draft : this.entries[this.index];
  }

  /** A prompt was sent: it becomes the newest entry (not twice in a row), and ↑ starts from it. */
  add(prompt: string): boolean {
    this.index = this.entries.length;
    this.draft = '';
    if (!prompt.trim() || this.entries[this.entries.length - 1] === prompt) return false;
    this.entries.push(prompt);
    if (this.entries.length > HISTORY_MAX) this.entries.shift();
    this.index = this.entries.length;
    return true;
  }
}

/** Where a project's prompt history lives: `<home>/history/<folder name>-<hash of its path>.jsonl`. */
export function historyFile(home: string, projectRoot: string): string {
  const hash = createHash('sha256').update(projectRoot).digest('hex').slice(0, 12);
  const name = path.basename(projectRoot).replace(/[^\w.-]/g, '_') || 'root';
  return path.join(home, 'history', `${name}-${hash}.jsonl`);
}

/** The prompts in a history file, oldest first; none when it is missing or unreadable (a bad line is skipped). */
export function readHistory(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'string') entries.push(value);
    } catch {
      // A line cut by a crash: the others still count.
    }
  }
  return entries.slice(-HISTORY_MAX);
}

/** Appends one prompt (one JSON string per line); rewrites the file when it has grown well past the cap. */
export function appendHistory(file: string, prompt: string): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    appendFileSync(file, `${JSON.stringify(prompt)}\n`, { mode: 0o600 });
    if (readFileSync(file, 'utf8').split('\n').length > 2 * HISTORY_MAX) {
      writeFileSync(
        file,
        readHistory(file)
          .map((entry) => `${JSON.stringify(entry)}\n`)
          .join(''),
        { mode: 0o600 },
      );
    }
  } catch {
    // History is a convenience: a read-only home must not break sending a prompt.
  }
}
