import path from 'node:path';
import { oneLine } from '../../core/index.js';
import { resultSummary } from '../format.js';

/**
 * What a tool call does, for people: `grep "auth" src/`, `read_file src/x.ts`,
 * `bash npm test`. Paths are shown relative to the workspace; unknown tools fall back to
 * the label the tool gives itself.
 */
export function toolAction(name: string, args: unknown, label: string, root?: string): string {
  const a = (args ?? {}) as Record<string, unknown>;
  const str = (key: string) => (typeof a[key] === 'string' ? (a[key] as string) : undefined);
  const where = (key = 'path') => {
    const p = str(key);
    return p === undefined ? '' : ` ${displayPath(p, root)}`;
  };
  switch (name) {
    case 'grep':
      return str('pattern') !== undefined ? `grep ${JSON.stringify(str('pattern'))}${where()}` : fallback(name, label);
    case 'glob':
      return str('pattern') !== undefined ? `glob ${str('pattern')}${where()}` : fallback(name, label);
    case 'read_file':
    case 'write_file':
    case 'edit_file':
    case 'list_dir':
      return str('path') !== undefined ? `${name}${where()}` : fallback(name, label);
    case 'bash': {
      const command = str('command');
      return command !== undefined ? `bash ${oneLine(command.split('\n', 1)[0] ?? '')}` : fallback(name, label);
    }
    case 'agent_start':
      return str('task') !== undefined ? `agent_start ${JSON.stringify(oneLine(str('task')!, 60))}` : fallback(name, label);
    default:
      return fallback(name, label);
  }
}

function fallback(name: string, label: string): string {
  return oneLine(`${name} ${label}`);
}

/** A path as the user thinks of it: relative to the workspace when inside it, with `./` dropped. */
export function displayPath(p: string, root?: string): string {
  if (!root || !path.isAbsolute(p)) return p.replace(/^\.\/(?=.)/, '');
  const relative = path.relative(root, p);
  if (relative === '') return '.';
  if (relative.startsWith('..') || path.isAbsolute(relative)) return p;
  return relative;
}

/** One line of a diff or a preview, with how to colour it. */
export interface DiffLine {
  kind: '+' | '-' | ' ' | '@' | 'note';
  text: string;
}

/** Diff lines a transcript entry shows before counting the rest. */
export const DIFF_SHOWN = 20;

/** The lines of a unified diff (as write_file and edit_file return it), each tagged for colour. */
export function diffLines(diff: string): DiffLine[] {
  return diff
    .split('\n')
    .filter((line) => line !== '')
    .map((line): DiffLine => {
      if (line.startsWith('@@')) return { kind: '@', text: line };
      if (line.startsWith('+')) return { kind: '+', text: line };
      if (line.startsWith('-')) return { kind: '-', text: line };
      if (line.startsWith(' ')) return { kind: ' ', text: line };
      return { kind: 'note', text: line };
    });
}

/** A new file's first lines, as added lines. */
export function addedLines(content: string, max = DIFF_SHOWN): DiffLine[] {
  const lines = content.replace(/\n$/, '').split('\n');
  const shown = lines.slice(0, max).map((text): DiffLine => ({ kind: '+', text: `+${text}` }));
  if (lines.length > max) shown.push({ kind: 'note', text: `… ${lines.length - max} more lines` });
  return shown;
}

/** What a finished call says to a person: a one-line summary, and for edits the diff. */
export interface ToolResultView {
  summary: string;
  diff?: DiffLine[];
  /** The summary says all (agent_start's `started sub-1 · explore · "…"`): one line, no call line above it. */
  single?: boolean;
}

/** What the model is told in words meant for it (`Call agent_poll with id sub-1 …`), without the sentences naming its tools. */
export function forPeople(text: string): string {
  const kept = text.replace(/[^.\n]*\b(?:agent_(?:poll|start|send|stop|merge)|read_result)\b[^.\n]*\.?\s*/g, '').trim();
  return kept || text;
}

/** Facts about jobs a tool result may name (agent_start reports the job it started). */
export interface JobLookup {
  (id: string): { id: string; definition: string; task: string } | undefined;
}

/**
 * The result of a call as a person reads it, not as the model does: `started sub-1 ·
 * explore · "read f1.txt"` for agent_start, `Updated a.ts (+1 -1)` and its diff for edits.
 */
export function toolResultView(options: {
  name: string;
  args: unknown;
  content: string;
  isError: boolean;
  job?: JobLookup;
}): ToolResultView {
  const { name, args, content, isError } = options;
  const first = (content.split('\n').find((line) => line.trim() !== '') ?? '').trim();
  if (!isError && name === 'agent_start') {
    const id = /\bsub-\d+(?:\.\d+)*\b/.exec(content)?.[0];
    const job = id ? options.job?.(id) : undefined;
    if (job) return { summary: `started ${job.id} · ${job.definition} · ${JSON.stringify(oneLine(job.task, 80))}`, single: true };
    // A resumed history's start (its job not known here): the task from the call, never the text meant for the model.
    const task = (args as { task?: unknown } | undefined)?.task;
    if (id)
      return {
        summary: `started ${id}${typeof task === 'string' ? ` · ${JSON.stringify(oneLine(task, 80))}` : ''}`,
        single: true,
      };
  }
  // Plan mode's refusal is worded for the model (a flag to rerun with); the user switches with a key.
  if (isError && /^plan mode: /.test(first)) return { summary: `error: ${first.split(';')[0]} · Shift+Tab switches the mode` };
  if (!isError && (name === 'write_file' || name === 'edit_file')) {
    const rest = content.slice(content.indexOf('\n') + 1);
    if (content.includes('\n') && /^(Updated|Edited)\b/.test(first)) return { summary: first, diff: diffLines(rest) };
    const body = (args as { content?: unknown } | undefined)?.content;
    if (name === 'write_file' && /^Created\b/.test(first) && typeof body === 'string')
      return { summary: first, diff: addedLines(body, 8) };
  }
  return { summary: resultSummary(isError ? content : forPeople(content), isError) };
}
