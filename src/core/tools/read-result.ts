import * as z from 'zod';
import { defineTool } from './define.js';
import type { ResultStore } from './result-store.js';

const DEFAULT_LINES = 200;
const MAX_MATCHES = 200;

/** read_result: pages or greps a large tool result that was handed off to the store. */
export function readResultTool(store: ResultStore) {
  return defineTool({
    name: 'read_result',
    description:
      'Read a large tool result that was stored instead of shown whole. Page it by line (offset, limit) or search it with a regex pattern.',
    kind: 'read-only',
    schema: z.object({
      result_id: z.string(),
      offset: z.number().int().min(1).optional(),
      limit: z.number().int().min(1).max(2000).optional(),
      pattern: z.string().optional(),
    }),
    label: (args) => args.result_id,
    execute: async (args) => {
      const content = store.get(args.result_id);
      if (content === undefined) {
        const known = store.ids();
        return {
          content: `No stored result "${args.result_id}". ${known.length ? `Known result ids: ${known.join(', ')}.` : 'Nothing has been stored in this session.'}`,
          isError: true,
        };
      }
      const lines = content.split('\n');
      if (args.pattern !== undefined) return grepLines(lines, args.pattern, args.result_id);
      const start = (args.offset ?? 1) - 1;
      const end = Math.min(lines.length, start + (args.limit ?? DEFAULT_LINES));
      if (start >= lines.length) {
        return { content: `${args.result_id} has ${lines.length} lines; offset ${start + 1} is past the end.`, isError: true };
      }
      const body = lines.slice(start, end).map((line, i) => `${String(start + i + 1).padStart(6)}\t${line}`);
      const more = end < lines.length ? `\n[lines ${start + 1}-${end} of ${lines.length}; continue with offset ${end + 1}]` : '';
      return body.join('\n') + more;
    },
  });
}

function grepLines(lines: string[], pattern: string, id: string) {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (error) {
    return { content: `Invalid pattern ${JSON.stringify(pattern)}: ${(error as Error).message}`, isError: true };
  }
  const hits: string[] = [];
  let total = 0;
  lines.forEach((line, i) => {
    if (!regex.test(line)) return;
    total += 1;
    if (hits.length < MAX_MATCHES) hits.push(`${i + 1}:${line}`);
  });
  if (total === 0) return `No line of ${id} matches ${JSON.stringify(pattern)}.`;
  return hits.join('\n') + (total > hits.length ? `\n[${total - hits.length} more matching lines not shown]` : '');
}
