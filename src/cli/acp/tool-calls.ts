/**
 * outrider's tool calls as ACP shows them: a kind, a title, the files they touch, and for
 * edits a diff the editor renders (and the user sees before allowing one).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk/unstable';
import { oneLine } from '../../core/index.js';

const KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: 'read',
  read_result: 'read',
  skill: 'read',
  read_mcp_resource: 'read',
  write_file: 'edit',
  edit_file: 'edit',
  bash: 'execute',
  grep: 'search',
  glob: 'search',
  list_dir: 'search',
  list_mcp_resources: 'search',
  web_fetch: 'fetch',
  todo_write: 'think',
};

/** The ACP kind of a tool: how the editor draws its call. */
export function toolKind(name: string): ToolKind {
  return Object.hasOwn(KINDS, name) ? KINDS[name]! : 'other';
}

const asRecord = (args: unknown): Record<string, unknown> =>
  typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** One line for the call: what it does to what. */
export function toolTitle(name: string, label: string, args: unknown): string {
  const a = asRecord(args);
  const short = (value: unknown, width = 100) => oneLine(String(value), width);
  switch (name) {
    case 'read_file':
      return `Read ${short(a.path)}`;
    case 'write_file':
      return `Write ${short(a.path)}`;
    case 'edit_file':
      return `Edit ${short(a.path)}`;
    case 'bash':
      return `Run ${short(a.command)}`;
    case 'grep':
      return `Search ${short(a.pattern, 60)}${text(a.path) ? ` in ${short(a.path, 60)}` : ''}`;
    case 'glob':
      return `Find ${short(a.pattern)}`;
    case 'list_dir':
      return `List ${short(a.path ?? '.')}`;
    case 'web_fetch':
      return `Fetch ${short(a.url)}`;
    case 'todo_write':
      return 'Update the plan';
    case 'agent_start':
      return `Start a sub-agent: ${short(a.task, 80)}`;
    default:
      return label ? `${name}: ${oneLine(label, 100)}` : name;
  }
}

/** The files a call reads or writes, absolute (the editor follows them). */
export function toolLocations(name: string, args: unknown, cwd: string): ToolCallLocation[] {
  const a = asRecord(args);
  const at = text(a.path);
  if (!at || !['read_file', 'write_file', 'edit_file', 'list_dir', 'grep', 'glob'].includes(name)) return [];
  const location: ToolCallLocation = { path: path.resolve(cwd, at) };
  if (name === 'read_file' && typeof a.offset === 'number') location.line = a.offset;
  return [location];
}

/** Files larger than this are not read for a diff: the call's text says what changed. */
const DIFF_MAX_BYTES = 1024 * 1024;

/**
 * The diff an edit call makes, as it would make it, read from the file before it runs; a
 * call that is not an edit, or a file too large or unreadable, gives none (or edit_file's own
 * two strings).
 */
export function editDiff(name: string, args: unknown, cwd: string): ToolCallContent[] {
  if (name !== 'write_file' && name !== 'edit_file') return [];
  const a = asRecord(args);
  const at = text(a.path);
  if (!at) return [];
  const file = path.resolve(cwd, at);
  // Read before the gate has judged the call: only files of the project, for the user's editor alone.
  const inside = !path.relative(cwd, file).startsWith('..');
  const before = inside ? readSmallFile(file) : undefined;
  if (name === 'write_file') {
    if (typeof a.content !== 'string') return [];
    return [{ type: 'diff', path: file, oldText: before ?? null, newText: a.content }];
  }
  const oldString = typeof a.old_string === 'string' ? a.old_string : undefined;
  const newString = typeof a.new_string === 'string' ? a.new_string : undefined;
  if (oldString === undefined || newString === undefined) return [];
  if (before !== undefined && oldString !== '' && before.includes(oldString)) {
    const after = a.replace_all === true ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
    return [{ type: 'diff', path: file, oldText: before, newText: after }];
  }
  return [{ type: 'diff', path: file, oldText: oldString, newText: newString }];
}

function readSmallFile(file: string): string | undefined {
  try {
    const info = statSync(file);
    if (!info.isFile() || info.size > DIFF_MAX_BYTES) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A text block of a call's content. */
export function textContent(value: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: value } };
}
