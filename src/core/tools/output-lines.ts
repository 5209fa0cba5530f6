/** Live lines passed on per chunk: progress is cosmetic, the result has everything. */
const UPDATE_LINES_PER_CHUNK = 20;
const UPDATE_LINE_MAX = 300;

/** Turns chunks into whole lines for onUpdate; a `\r` progress line shows its latest state. */
export function lineSplitter(onUpdate: ((text: string) => void) | undefined): { push(chunk: string): void; flush(): void } {
  let partial = '';
  const emit = (lines: string[]): void => {
    for (const raw of lines.slice(-UPDATE_LINES_PER_CHUNK)) {
      const line = raw.slice(raw.lastIndexOf('\r', raw.length - 2) + 1).replace(/\r$/, '');
      if (line.trim() !== '') onUpdate?.(line.slice(0, UPDATE_LINE_MAX));
    }
  };
  return {
    push(chunk) {
      if (!onUpdate) return;
      const lines = (partial + chunk).split('\n');
      // A line that never ends (a bare-\r progress bar) is kept to its latest part.
      partial = (lines.pop() ?? '').slice(-UPDATE_LINE_MAX * 4);
      emit(lines);
    },
    flush() {
      if (partial !== '') emit([partial]);
      partial = '';
    },
  };
}
