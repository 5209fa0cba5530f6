/**
 * How the live area (everything below the transcript) shares the terminal's rows. It must
 * never be as tall as the screen: Ink then clears the screen and the scrollback on every
 * redraw, and a terminal cannot erase lines that have scrolled off. So each part asks for
 * the lines it would like and gets what fits, in order of importance.
 */

/** Lines each part would like to show. */
export interface LiveWants {
  /** The terminal's rows (Infinity when unknown). */
  height: number;
  /** The input box, or the view in its place. */
  bottom: number;
  /** The approval prompt; 0 when nothing waits. */
  approval: number;
  /** The working line; 0 when idle. */
  working: number;
  /** The `statusLine` command's line (1 when one is configured). */
  status?: number;
  /** The plan's checklist (todo_write). */
  todos: number;
  /** One row per running or queued sub-agent. */
  rows: number;
  /** Lines of the running tools. */
  tools: number;
  /** Lines of the text streaming in. */
  text: number;
}

/** Lines each part may use; `rows` includes the `+N more` line when rows are collapsed. */
export interface LiveBudget {
  footer: number;
  bottom: number;
  approval: number;
  working: number;
  status: number;
  /** The plan's checklist (todo_write). */
  todos: number;
  rows: number;
  /** Rows shown one per job (the rest are summed up in one line). */
  rowsShown: number;
  tools: number;
  text: number;
}

/** The footer: the status line and the key hint. */
export const FOOTER_LINES = 2;
/** Streamed text and running tools keep this many lines before rows take the rest. */
const LIVE_MINIMUM = 4;
/** Streamed text shown at most, however tall the screen (the whole message prints when it ends). */
export const LIVE_TEXT_MAX = 12;

export function liveBudget(wants: LiveWants): LiveBudget {
  // One row stays free: output as tall as the screen is Ink's full-screen mode.
  let left = Number.isFinite(wants.height) ? Math.max(0, wants.height - 1) : Number.MAX_SAFE_INTEGER;
  const take = (n: number) => {
    const got = Math.max(0, Math.min(n, left));
    left -= got;
    return got;
  };
  const footer = take(FOOTER_LINES);
  const bottom = take(wants.bottom);
  const approval = take(wants.approval);
  const working = take(wants.working);
  const status = take(wants.status ?? 0);
  // The plan is a reminder, not the work: at most a third of what is left, so rows keep room.
  const todos = take(Math.min(wants.todos, Math.floor(left / 3)));
  // Text and tools keep a little room; rows come next, then text and tools get the rest.
  const reserved = Math.min(wants.text + wants.tools, LIVE_MINIMUM, left);
  left -= reserved;
  let rows = 0;
  let rowsShown = 0;
  if (wants.rows <= left) {
    rows = rowsShown = take(wants.rows);
  } else if (left > 0) {
    rows = take(left);
    rowsShown = rows - 1;
  }
  left += reserved;
  const tools = take(wants.tools);
  const text = take(Math.min(wants.text, LIVE_TEXT_MAX));
  return { footer, bottom, approval, working, status, todos, rows, rowsShown, tools, text };
}
