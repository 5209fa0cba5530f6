import path from 'node:path';
import { oneLine } from '../../core/text.js';

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
