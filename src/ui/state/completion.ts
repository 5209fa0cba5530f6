import type { LineState } from './line-editor.js';

/** One choice of a completion menu. */
export interface CompletionItem {
  label: string;
  detail?: string;
  /** What replaces the word being completed. */
  insert: string;
  /** A command that wants more typed after it (an MCP prompt's arguments): Enter inserts it instead of running it. */
  takesInput?: boolean;
}

/** The menu under the cursor: commands after a leading `/`, workspace files after `@`. */
export interface Completion {
  kind: 'command' | 'file';
  items: CompletionItem[];
  /** The code-point range of the text the chosen item replaces. */
  from: number;
  to: number;
}

/** Choices a menu lists at most. */
export const MENU_ITEMS = 6;

/** The menu for the input as it stands, or undefined when nothing is being completed. */
export function completionFor(
  line: LineState,
  sources: { commands: readonly { name: string; does: string; takesInput?: boolean }[]; files?: readonly string[] },
): Completion | undefined {
  const chars = Array.from(line.text);
  const before = chars.slice(0, line.cursor).join('');
  // A command: `/` first, the cursor still in its first word.
  if (/^\/[\w-]*$/.test(before)) {
    const prefix = before.slice(1).toLowerCase();
    const items = rank(sources.commands, (c) => c.name, prefix).map((c) => ({
      label: `/${c.name}`,
      detail: c.does,
      insert: `/${c.name} `,
      ...(c.takesInput ? { takesInput: true } : {}),
    }));
    if (items.length === 0 || (items.length === 1 && items[0]!.label === before && chars.length > before.length))
      return undefined;
    return { kind: 'command', items, from: 0, to: wordEnd(chars, line.cursor) };
  }
  // A file: the word at the cursor starts with `@`.
  const word = /(^|\s)@([^\s@]*)$/.exec(before);
  if (word && sources.files) {
    const query = word[2]!;
    const from = line.cursor - Array.from(query).length - 1;
    const items = rankFiles(sources.files, query).map((file) => ({ label: file, insert: `@${file} ` }));
    if (items.length === 0) return undefined;
    return { kind: 'file', items, from, to: wordEnd(chars, line.cursor) };
  }
  return undefined;
}

/** The input with `item` in place of the word being completed, the cursor after it. */
export function applyCompletion(line: LineState, completion: Completion, item: CompletionItem): LineState {
  const chars = Array.from(line.text);
  const inserted = Array.from(item.insert);
  const rest = chars.slice(completion.to);
  // No doubled space when the text after already starts with one.
  const tail = rest[0] === ' ' && inserted[inserted.length - 1] === ' ' ? rest.slice(1) : rest;
  return { text: [...chars.slice(0, completion.from), ...inserted, ...tail].join(''), cursor: completion.from + inserted.length };
}

function wordEnd(chars: string[], cursor: number): number {
  let i = cursor;
  while (i < chars.length && !/\s/.test(chars[i]!)) i += 1;
  return i;
}

/** Prefix matches first, then matches inside the name, in their own order. */
function rank<T>(items: readonly T[], name: (item: T) => string, query: string): T[] {
  const starts = items.filter((item) => name(item).toLowerCase().startsWith(query));
  const inside = items.filter((item) => !name(item).toLowerCase().startsWith(query) && name(item).toLowerCase().includes(query));
  return [...starts, ...inside];
}

/** Files whose name starts with the query, then whose path holds it, then whose path holds its letters in order; shortest first. */
export function rankFiles(files: readonly string[], query: string, max = 50): string[] {
  const q = query.toLowerCase();
  const scored: { file: string; score: number }[] = [];
  for (const file of files) {
    const lower = file.toLowerCase();
    const base = lower.slice(lower.lastIndexOf('/') + 1);
    const score = !q
      ? 3
      : base.startsWith(q)
        ? 0
        : lower.startsWith(q)
          ? 1
          : lower.includes(q)
            ? 2
            : subsequence(lower, q)
              ? 4
              : -1;
    if (score >= 0) scored.push({ file, score });
  }
  scored.sort((a, b) => a.score - b.score || a.file.length - b.file.length || a.file.localeCompare(b.file));
  return scored.slice(0, max).map((s) => s.file);
}

function subsequence(text: string, query: string): boolean {
  let i = 0;
  for (const char of text) if (char === query[i]) i += 1;
  return i === query.length;
}
