import type { YAMLError } from 'yaml';
import { yamlModule } from './yaml-module.js';

/**
 * Agent files are Markdown with YAML front matter between `---` lines. Splitting the block
 * off is done here; the block itself is parsed by the `yaml` package (YAML 1.2, core schema),
 * because files written for Claude Code use all of YAML: block scalars, quoted strings,
 * flow and block lists, nested maps under keys we never read (`hooks:`), comments.
 */

/** The front matter's fields as YAML gave them, and the trimmed body; or one line saying what is wrong. */
export type FrontMatterResult = { ok: true; data: Record<string, unknown>; body: string } | { ok: false; error: string };

/** Splits `---` front matter from the body and parses it. Error lines count from the file's first line. */
export function parseFrontMatter(text: string): FrontMatterResult {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  let start = 0;
  while (start < lines.length && lines[start].trim() === '') start++;
  if (start >= lines.length || lines[start].trimEnd() !== '---') {
    return {
      ok: false,
      error: 'no front matter: the file must start with a line "---", then fields such as "name: …", then "---"',
    };
  }
  let end = start + 1;
  while (end < lines.length && !/^(---|\.\.\.)\s*$/.test(lines[end])) end++;
  if (end >= lines.length) {
    return { ok: false, error: `front matter opened on line ${start + 1} is never closed: add a line "---" after the fields` };
  }
  const parsed = parseFields(lines.slice(start + 1, end).join('\n'), start + 2);
  if (!parsed.ok) return parsed;
  return {
    ok: true,
    data: parsed.data,
    body: lines
      .slice(end + 1)
      .join('\n')
      .trim(),
  };
}

/** The block's top-level map; `firstLine` is the file line of the block's first line. */
function parseFields(
  block: string,
  firstLine: number,
): { ok: true; data: Record<string, unknown> } | { ok: false; error: string } {
  let parsed = readYaml(block);
  if (!parsed.ok) {
    const lenient = quoteColonValues(block);
    const retry = lenient === block ? parsed : readYaml(lenient);
    if (!retry.ok) return { ok: false, error: describeYamlError(parsed.error, block, firstLine) };
    parsed = retry;
  }
  const value = parsed.value;
  if (value === null || value === undefined) return { ok: true, data: {} };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: 'the front matter must be fields such as "name: reviewer", one per line' };
  }
  return { ok: true, data: value as Record<string, unknown> };
}

function readYaml(source: string): { ok: true; value: unknown } | { ok: false; error: YAMLError | Error } {
  // logLevel 'silent': yaml would otherwise print its warnings (a list used as a key…) to stderr.
  const doc = yamlModule().parseDocument(source, { prettyErrors: false, uniqueKeys: true, logLevel: 'silent' });
  if (doc.errors.length > 0) return { ok: false, error: doc.errors[0] };
  try {
    // The alias limit keeps a "billion laughs" file from expanding without end.
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return { ok: false, error: error as Error };
  }
}

/**
 * Claude Code's own agent files (and the ones its `/agents` command writes) often hold
 * descriptions such as `description: Use this agent when …: user: "…"` unquoted; YAML reads
 * the inner `: ` as a nested map and refuses the block. Only after such a failure, every
 * single-line plain value holding `: ` is quoted and the block parsed again; if that fails too,
 * the original error is reported.
 */
function quoteColonValues(block: string): string {
  const lines = block.split('\n');
  return lines
    .map((line, i) => {
      const match = /^([A-Za-z_][\w.-]*)([ \t]*):[ \t]+(.*?)[ \t]*$/.exec(line);
      if (!match) return line;
      const [, key, space, value] = match;
      const continued = /^[ \t]+\S/.test(lines[i + 1] ?? '');
      if (continued || /^["'[{|>&*!%@`#]/.test(value) || !/:(\s|$)/.test(value)) return line;
      return `${key}${space}: ${JSON.stringify(value)}`;
    })
    .join('\n');
}

function describeYamlError(error: YAMLError | Error, block: string, firstLine: number): string {
  const position = 'pos' in error ? error.pos[0] : undefined;
  if (position === undefined) return `invalid YAML: ${error.message}`;
  const before = block.slice(0, position);
  const line = firstLine + (before.match(/\n/g)?.length ?? 0);
  const lineText = block.slice(before.lastIndexOf('\n') + 1).split('\n', 1)[0];
  const code = 'code' in error ? error.code : undefined;
  if (code === 'DUPLICATE_KEY') {
    const key = lineText.trim().replace(/\s*:.*$/, '');
    return `line ${line}: "${key}" is given twice; keep one`;
  }
  const hint =
    code === 'MISSING_CHAR' && /map values/.test(error.message)
      ? ' (each field is a line "key: value")'
      : code === 'MISSING_CHAR' && /quote/.test(error.message)
        ? ' (close the string with the quote it opens with)'
        : code === 'TAB_AS_INDENT'
          ? ' (indent with spaces, not tabs)'
          : code === 'BLOCK_AS_IMPLICIT_KEY' || code === 'MULTILINE_IMPLICIT_KEY'
            ? ' (put a value that holds ": " in quotes)'
            : '';
  return `line ${line}: invalid YAML: ${error.message}${hint}`;
}
