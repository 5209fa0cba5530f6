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
    const fields = retry.ok ? retry : readFieldByField(block);
    if (!fields.ok) return { ok: false, error: describeYamlError(parsed.error, block, firstLine) };
    parsed = fields;
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

/**
 * The fields Claude Code's agent, skill and command files use. Only these open a field in
 * readFieldByField: an example's `user: "…"` line at the start of a line does not.
 */
const FIELD_NAMES: ReadonlySet<string> = new Set([
  'name',
  'description',
  'tools',
  'disallowedTools',
  'disallowed_tools',
  'allowed-tools',
  'model',
  'color',
  'permissionMode',
  'permission_mode',
  'maxTurns',
  'max_turns',
  'max_total_tokens',
  'max_duration_s',
  'maxCostUsd',
  'maxToolCalls',
  'timeout',
  'isolation',
  'runsOn',
  'memory',
  'skills',
  'hooks',
  'mcpServers',
  'effort',
  'background',
  'argument-hint',
  'when_to_use',
  'disable-model-invocation',
  'user-invocable',
  'context',
  'agent',
  'version',
  'license',
]);

/** The fields whose value is prose, where examples with `: ` and quotes are found. */
const PROSE_FIELDS: ReadonlySet<string> = new Set(['description', 'when_to_use']);

/**
 * The last resort, after YAML refused the block twice: what Claude Code loads although it is
 * not YAML — a description whose examples run over several lines at the margin (`user: "…"`,
 * `assistant: "…"`), in quotes or not, or a quoted one with quotes inside. A line opening with
 * a known field name starts a field; any other line continues the one before. Each field is
 * read as YAML alone when it can be (a list, a map of hooks); else its text is the value, with
 * its enclosing quotes (and the escapes they allow) taken off. Not ok when the block does not
 * start with a field, gives one twice, or holds a list or map that is not YAML.
 */
function readFieldByField(block: string): { ok: true; value: Record<string, unknown> } | { ok: false } {
  const fields: { key: string; lines: string[] }[] = [];
  for (const line of block.split('\n')) {
    const opened = /^([A-Za-z_][\w-]*):(?=\s|$)/.exec(line);
    if (opened && FIELD_NAMES.has(opened[1])) fields.push({ key: opened[1], lines: [line] });
    else if (fields.length) fields.at(-1)!.lines.push(line);
    else if (line.trim() !== '' && !line.trimStart().startsWith('#')) return { ok: false };
  }
  const value: Record<string, unknown> = {};
  for (const { key, lines } of fields) {
    if (Object.hasOwn(value, key)) return { ok: false };
    const alone = readYaml(lines.join('\n'));
    if (alone.ok && alone.value !== null && typeof alone.value === 'object' && !Array.isArray(alone.value)) {
      value[key] = (alone.value as Record<string, unknown>)[key];
      continue;
    }
    // Only prose is rescued: a name, a list or a map YAML cannot read stays an error.
    if (!PROSE_FIELDS.has(key)) return { ok: false };
    const text = unquote([lines[0].slice(key.length + 1), ...lines.slice(1)].join('\n').trim());
    if (text === undefined) return { ok: false };
    value[key] = text;
  }
  return { ok: true, value };
}

/**
 * Text without the quotes around it: `"…"` with its `\\"` and `\\\\` escapes read, `'…'` with
 * `''`. Undefined for a quote never closed, or what opens as a list or a map.
 */
function unquote(text: string): string | undefined {
  const quote = text[0];
  if (quote === '"' || quote === "'") {
    if (text.length < 2 || !text.endsWith(quote)) return undefined;
    const inner = text.slice(1, -1);
    return quote === '"' ? inner.replace(/\\(["\\])/g, '$1') : inner.replace(/''/g, "'");
  }
  return /^[[{]/.test(text) ? undefined : text;
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
