/** One line of a line diff: kept, removed from the old text, or added in the new one. */
export interface DiffOp {
  kind: ' ' | '-' | '+';
  line: string;
}

export interface UnifiedDiffOptions {
  /** Shown in the `---`/`+++` header; no header when absent. */
  label?: string;
  /** Unchanged lines around each change. */
  context?: number;
  /** Diff lines kept before the rest is replaced by a note. */
  maxLines?: number;
}

/** A unified diff and its line counts. `text` is empty when no line changed. */
export interface UnifiedDiff {
  text: string;
  added: number;
  removed: number;
}

/** Diff lines a tool result shows before saying how many more there are. */
export const DIFF_MAX_LINES = 60;

/** Past this many edits Myers' search costs more than it tells: the changed region is shown replaced whole. */
const MAX_EDIT_DISTANCE = 2_000;

/** Splits text into lines; a final newline ends the last line rather than starting an empty one. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The line edits turning `a` into `b`: common ends trimmed, Myers' algorithm on the middle. */
export function diffLines(a: string[], b: string[]): DiffOp[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const middleA = a.slice(start, endA);
  const middleB = b.slice(start, endB);
  const middle = myers(middleA, middleB) ?? [
    ...middleA.map((line): DiffOp => ({ kind: '-', line })),
    ...middleB.map((line): DiffOp => ({ kind: '+', line })),
  ];
  return [
    ...a.slice(0, start).map((line): DiffOp => ({ kind: ' ', line })),
    ...middle,
    ...a.slice(endA).map((line): DiffOp => ({ kind: ' ', line })),
  ];
}

/** Myers' O((N+M)·D) shortest edit script, or undefined when D exceeds MAX_EDIT_DISTANCE. */
function myers(a: string[], b: string[]): DiffOp[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  if (max === 0) return [];
  const offset = max;
  const v = new Int32Array(2 * max + 2);
  // trace[d] holds v[-d..d] after round d, which is all backtracking needs.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(max, MAX_EDIT_DISTANCE); d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice(offset - d, offset + d + 1));
        return backtrack(trace, a, b);
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  return undefined;
}

function backtrack(trace: Int32Array[], a: string[], b: string[]): DiffOp[] {
  const ops: DiffOp[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d > 0; d--) {
    const prev = trace[d - 1];
    const at = (k: number): number => prev[k + d - 1];
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: ' ', line: a[--x] });
      y--;
    }
    if (x === prevX) ops.push({ kind: '+', line: b[--y] });
    else ops.push({ kind: '-', line: a[--x] });
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: ' ', line: a[--x] });
    y--;
  }
  return ops.reverse();
}

/** A unified diff of two texts, hunks with `context` lines around changes, cut after `maxLines`. */
export function unifiedDiff(oldText: string, newText: string, options: UnifiedDiffOptions = {}): UnifiedDiff {
  const context = options.context ?? 3;
  const ops = diffLines(splitLines(oldText), splitLines(newText));
  const added = ops.filter((op) => op.kind === '+').length;
  const removed = ops.filter((op) => op.kind === '-').length;
  if (added === 0 && removed === 0) return { text: '', added, removed };

  const lines: string[] = options.label ? [`--- ${options.label}`, `+++ ${options.label}`] : [];
  for (const hunk of hunks(ops, context)) lines.push(...hunk);

  const max = options.maxLines ?? Infinity;
  if (lines.length > max) {
    const more = lines.length - max;
    lines.length = max;
    lines.push(`… ${more} more diff line${more === 1 ? '' : 's'} not shown`);
  }
  return { text: lines.join('\n'), added, removed };
}

/** Groups changes closer than 2·context lines into hunks, each with its `@@` header first. */
function hunks(ops: DiffOp[], context: number): string[][] {
  // Line numbers (1-based) of each op in the old and new text, counted before the op.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const op of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (op.kind !== '+') oldLine++;
    if (op.kind !== '-') newLine++;
  }

  const changed = ops.flatMap((op, i) => (op.kind === ' ' ? [] : [i]));
  const result: string[][] = [];
  let i = 0;
  while (i < changed.length) {
    let last = changed[i];
    let j = i + 1;
    while (j < changed.length && changed[j] - last <= 2 * context) last = changed[j++];
    const from = Math.max(0, changed[i] - context);
    const to = Math.min(ops.length, last + context + 1);
    const slice = ops.slice(from, to);
    const oldCount = slice.filter((op) => op.kind !== '+').length;
    const newCount = slice.filter((op) => op.kind !== '-').length;
    // An empty side is numbered by the line before it, as diff(1) does.
    const oldStart = oldCount === 0 ? oldAt[from] - 1 : oldAt[from];
    const newStart = newCount === 0 ? newAt[from] - 1 : newAt[from];
    result.push([`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...slice.map((op) => op.kind + op.line)]);
    i = j;
  }
  return result;
}
