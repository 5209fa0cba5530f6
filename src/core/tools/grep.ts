import { stat } from 'node:fs/promises';
import * as z from 'zod';
import { type ToolOutput, defineTool } from './define.js';
import { findExecutable } from '../platform/find-executable.js';
import { isMissing } from '../platform/fs-errors.js';
import { JS_GREP_DEADLINE_MS, type JsGrepOptions, realDeadlineTimers, searchWithJs } from './grep-js.js';
import { GREP_RESULT_LIMIT, type GrepOutcome, type GrepQuery } from './grep-query.js';
import { type RgDeadline, searchWithRg } from './grep-rg.js';
import { displayPath, resolveWorkspacePath } from '../platform/paths.js';
import { notRegular, specialKind } from '../platform/regular-file.js';

export interface GrepToolOptions {
  /** Where rg is, or undefined to search in JavaScript. Default: looked up on PATH once per tool. */
  findRg?: () => Promise<string | undefined> | string | undefined;
  /** The JavaScript search's worker, deadline and timers (grep-js.ts). */
  js?: JsGrepOptions;
  /**
   * The environment rg runs in, and where the user's git excludes file is looked up: the
   * session's without its secrets, for rg could otherwise read the key in its own
   * /proc/self/environ (a count of matches answers yes or no). Default: this process's.
   */
  env?: NodeJS.ProcessEnv;
  /** How long rg may run (default 30 s, as the JavaScript search), and its timers. */
  rgDeadline?: Partial<RgDeadline>;
}

const schema = z.object({
  pattern: z.string().describe('regular expression'),
  path: z.string().optional(),
  glob: z.string().optional().describe('file filter, e.g. "*.ts"'),
  ignore_case: z.boolean().optional(),
  output_mode: z.enum(['content', 'files_with_matches', 'count']).optional(),
});

/** The grep tool; rg is used when `findRg` finds it, a JavaScript search otherwise. */
export function grepTool(options: GrepToolOptions = {}) {
  const findRg = options.findRg ?? (() => findExecutable('rg'));
  // Per tool instance, not per module: each session's tools look rg up once.
  let rgLookup: Promise<string | undefined> | undefined;

  return defineTool({
    name: 'grep',
    description:
      'Search file contents for a regex (ripgrep syntax), skipping .gitignored files and .git. `path` is a file or directory (default: workspace root). output_mode: content (path:line:text, the default), files_with_matches or count. At most 200 results.',
    schema,
    kind: 'read-only',
    paths: (args) => [args.path ?? '.'],
    label: (args) => (args.path ? `${args.pattern} in ${args.path}` : args.pattern),
    async execute(args, ctx) {
      const { absolute } = resolveWorkspacePath(ctx.workspace, args.path ?? '.');
      const shown = displayPath(ctx.workspace, absolute);
      const info = await stat(absolute).catch((error: unknown) => {
        if (isMissing(error)) return undefined;
        throw error;
      });
      if (!info) return { content: `Path not found: ${shown}. Use glob or list_dir to find it.`, isError: true };
      // rg reads a FIFO or a device it is named, and would wait on it or never end.
      if (!info.isFile() && !info.isDirectory()) {
        return { content: `${notRegular(shown, specialKind(info))} or a directory; grep searches those only.`, isError: true };
      }

      const query: GrepQuery = {
        pattern: args.pattern,
        ignoreCase: args.ignore_case ?? false,
        glob: args.glob,
        mode: args.output_mode ?? 'content',
        target: absolute,
        workspace: ctx.workspace,
        limit: GREP_RESULT_LIMIT,
        signal: ctx.signal,
      };
      rgLookup ??= Promise.resolve(findRg());
      const rg = await rgLookup;
      const outcome = rg
        ? await searchWithRg(rg, query, options.env ?? process.env, {
            ms: options.rgDeadline?.ms ?? JS_GREP_DEADLINE_MS,
            timers: options.rgDeadline?.timers ?? realDeadlineTimers,
          })
        : await searchWithJs(query, options.js);
      return formatOutcome(outcome, query, shown);
    },
  });
}

function formatOutcome(outcome: GrepOutcome, query: GrepQuery, shown: string): ToolOutput | string {
  if (!outcome.ok) return { content: outcome.error, isError: true };
  const where = query.glob ? `${shown} (files matching ${query.glob})` : shown;
  const trailer =
    (outcome.warning ? `\n[rg: ${outcome.warning}]` : '') + (outcome.notes ?? []).map((note) => `\n[${note}]`).join('');
  if (outcome.total === 0) return `No matches for ${query.pattern} in ${where}${trailer}`;
  let text = outcome.lines.join('\n');
  const hidden = outcome.total - outcome.lines.length;
  if (hidden > 0 || outcome.countCapped) {
    const unit = query.mode === 'content' ? 'matching lines' : 'files';
    const amount = outcome.countCapped ? `at least ${hidden}` : `${hidden}`;
    text += `\n\n[${amount} more ${unit} not shown; narrow the pattern, path or glob.]`;
  }
  return text + trailer;
}
