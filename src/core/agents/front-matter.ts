/**
 * A parser for the small YAML subset that agent-definition front matter uses: top-level
 * `key: value` scalars (plain, quoted, numbers, booleans, null), flow lists `[a, b]`,
 * block lists (`- a` lines under a key), block scalars (`|`, `>`), plain scalars folded
 * over indented lines, and `#` comments. No dependency, on purpose: the files are tiny
 * and a full YAML parser would be most of the bundle for three fields.
 *
 * Errors inside one key's value are attached to that key rather than failing the file,
 * because Claude Code files may carry structures we do not read (`hooks:` maps…) and
 * unknown keys must be ignorable. Only a top-level line that is not `key: value` fails
 * the whole front matter.
 */

export type YamlScalar = string | number | boolean | null;
export type YamlValue = YamlScalar | YamlScalar[];

/** One top-level key: its value, or why its value could not be read. `line` is 1-based in the file. */
export type FrontMatterField =
  | { ok: true; value: YamlValue; line: number }
  | { ok: false; error: string; line: number };

export type FrontMatterResult =
  | { ok: true; fields: Map<string, FrontMatterField>; body: string }
  | { ok: false; error: string };

/** Splits `---` front matter from the body and parses it. The body is trimmed. */
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
  const parsed = parseYamlSubset(lines.slice(start + 1, end), start + 2);
  if (!parsed.ok) return parsed;
  return { ok: true, fields: parsed.fields, body: lines.slice(end + 1).join('\n').trim() };
}

/** Parses front-matter lines; `firstLine` is the file line number of `lines[0]`. */
export function parseYamlSubset(
  lines: string[],
  firstLine = 1,
): { ok: true; fields: Map<string, FrontMatterField> } | { ok: false; error: string } {
  const fields = new Map<string, FrontMatterField>();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const lineNo = firstLine + i;
    if (isBlankOrComment(line)) {
      i++;
      continue;
    }
    if (/^\s/.test(line)) {
      return { ok: false, error: `line ${lineNo}: unexpected indentation; top-level fields start at the beginning of the line` };
    }
    const match = /^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$/.exec(line.trimEnd());
    if (!match) {
      return { ok: false, error: `line ${lineNo}: expected "key: value", got ${JSON.stringify(cut(line.trim()))}` };
    }
    const key = match[1];
    const rest = (match[2] ?? '').trim();
    const blockScalar = /^[|>]/.test(rest);
    let j = i + 1;
    while (j < lines.length && belongsToValue(lines[j], { emptyValue: rest === '' || rest.startsWith('#'), blockScalar })) j++;
    const block = lines.slice(i + 1, j);
    const field = readValue(rest, block, lineNo);
    fields.set(
      key,
      fields.has(key) ? { ok: false, error: `"${key}" is given twice (lines ${fields.get(key)!.line} and ${lineNo})`, line: lineNo } : field,
    );
    i = j;
  }
  return { ok: true, fields };
}

/** Whether a line after `key:` is part of that key's value. */
function belongsToValue(line: string, context: { emptyValue: boolean; blockScalar: boolean }): boolean {
  if (line.trim() === '' || /^\s/.test(line)) return true;
  if (context.blockScalar) return false;
  if (line.startsWith('#')) return true;
  // YAML allows a block list at the key's own indentation ("tools:\n- read_file").
  return context.emptyValue && /^-(\s|$)/.test(line);
}

class ValueError extends Error {}

function readValue(rest: string, block: string[], line: number): FrontMatterField {
  try {
    return { ok: true, value: valueOf(rest, block, line), line };
  } catch (error) {
    if (error instanceof ValueError) return { ok: false, error: error.message, line };
    throw error;
  }
}

function valueOf(rest: string, block: string[], line: number): YamlValue {
  if (/^[|>]/.test(rest)) return blockScalar(rest, block, line);
  const content = block.map((text, k) => ({ text, line: line + 1 + k })).filter((l) => !isBlankOrComment(l.text));
  if (rest === '' || rest.startsWith('#')) {
    if (content.length === 0) return null;
    if (/^-(\s|$)/.test(content[0].text.trim())) return blockList(content);
    if (/^[\w.-]+[ \t]*:(\s|$)/.test(content[0].text.trim())) {
      throw new ValueError(`nested fields are not supported (line ${content[0].line}); give a single value or a list`);
    }
    return foldPlain(block);
  }
  if (content.length === 0) return inlineValue(rest, line);
  if (/^["'[]/.test(rest)) {
    // A quoted string or flow list continued over indented lines: YAML folds the breaks to spaces.
    return inlineValue([rest, ...content.map((l) => l.text.trim())].join(' '), line);
  }
  if (/^[{]/.test(rest)) return inlineValue(rest, line);
  return foldPlain([rest, ...block]);
}

function blockList(content: Array<{ text: string; line: number }>): YamlScalar[] {
  const indent = indentOf(content[0].text);
  return content.map(({ text, line }) => {
    const item = /^-(?:[ \t]+(.*))?$/.exec(text.trim());
    if (!item || indentOf(text) !== indent) {
      throw new ValueError(`expected a list item "- value" on line ${line} (nested values are not supported)`);
    }
    const value = inlineValue((item[1] ?? '').trim(), line);
    if (Array.isArray(value)) throw new ValueError(`nested lists are not supported (line ${line})`);
    return value;
  });
}

/** `|` keeps line breaks, `>` folds them to spaces; `-` strips the final break, `+` keeps all. */
function blockScalar(header: string, block: string[], line: number): string {
  const match = /^([|>])([-+]?)\s*(#.*)?$/.exec(header);
  if (!match) throw new ValueError(`unsupported block scalar header ${JSON.stringify(header)} on line ${line}; use "|" or ">"`);
  const [, style, chomp] = match;
  if (block.every((l) => l.trim() === '')) return '';
  const indent = Math.min(...block.filter((l) => l.trim() !== '').map(indentOf));
  const texts = block.map((l) => (l.trim() === '' ? '' : l.slice(indent)));
  let trailing = 0;
  while (trailing < texts.length && texts[texts.length - 1 - trailing] === '') trailing++;
  const kept = texts.slice(0, texts.length - trailing);
  let value = style === '|' ? kept.join('\n') : foldLines(kept);
  if (chomp === '+') value += '\n'.repeat(trailing + 1);
  else if (chomp === '') value += '\n';
  return value;
}

/** A plain scalar spread over several lines: line breaks become spaces, blank lines newlines. */
function foldPlain(lines: string[]): YamlScalar {
  const texts = lines.filter((l) => !/^\s*#/.test(l)).map((l) => stripComment(l).trim());
  while (texts.length && texts[texts.length - 1] === '') texts.pop();
  return plainScalar(foldLines(texts));
}

function foldLines(texts: string[]): string {
  let out = '';
  let pendingBreak = false;
  for (const text of texts) {
    if (text === '') {
      out += '\n';
      pendingBreak = false;
      continue;
    }
    out += pendingBreak ? ` ${text}` : text;
    pendingBreak = true;
  }
  return out;
}

function inlineValue(text: string, line: number): YamlValue {
  if (text.startsWith('[')) return flowList(text, line);
  if (text.startsWith('{')) throw new ValueError(`maps ({…}) are not supported (line ${line}); give a single value or a list`);
  if (text.startsWith('"') || text.startsWith("'")) {
    const { value, end } = quoted(text, 0, line);
    expectNothingAfter(text.slice(end), line);
    return value;
  }
  return plainScalar(stripComment(text).trim());
}

function flowList(text: string, line: number): YamlScalar[] {
  const items: YamlScalar[] = [];
  let pos = 1;
  for (;;) {
    while (pos < text.length && /\s/.test(text[pos])) pos++;
    if (pos >= text.length) throw new ValueError(`list opened with "[" is never closed on line ${line}; add "]"`);
    const ch = text[pos];
    if (ch === ']') break;
    if (ch === '[' || ch === '{') throw new ValueError(`nested lists are not supported (line ${line})`);
    if (ch === ',') throw new ValueError(`empty item in the list on line ${line}`);
    if (ch === '"' || ch === "'") {
      const { value, end } = quoted(text, pos, line);
      items.push(value);
      pos = end;
    } else {
      const stop = text.slice(pos).search(/[,\]]/);
      if (stop < 0) throw new ValueError(`list opened with "[" is never closed on line ${line}; add "]"`);
      items.push(plainScalar(text.slice(pos, pos + stop).trim()));
      pos += stop;
    }
    while (pos < text.length && /\s/.test(text[pos])) pos++;
    if (text[pos] === ',') pos++;
    else if (text[pos] !== ']') throw new ValueError(`expected "," or "]" in the list on line ${line}`);
  }
  expectNothingAfter(text.slice(pos + 1), line);
  return items;
}

const ESCAPES: Readonly<Record<string, string>> = Object.freeze({
  '0': '\0', a: '\x07', b: '\b', t: '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b',
  ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\u0085', _: '\u00a0',
});

/** Reads a quoted string starting at `start`; returns the value and the index after the closing quote. */
function quoted(text: string, start: number, line: number): { value: string; end: number } {
  const quote = text[start];
  let value = '';
  let pos = start + 1;
  while (pos < text.length) {
    const ch = text[pos];
    if (quote === "'") {
      if (ch === "'") {
        if (text[pos + 1] === "'") {
          value += "'";
          pos += 2;
          continue;
        }
        return { value, end: pos + 1 };
      }
    } else if (ch === '"') {
      return { value, end: pos + 1 };
    } else if (ch === '\\') {
      const code = text[pos + 1];
      const hexLength = code === 'x' ? 2 : code === 'u' ? 4 : code === 'U' ? 8 : 0;
      if (hexLength) {
        const hex = text.slice(pos + 2, pos + 2 + hexLength);
        if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(hex)) throw new ValueError(`bad escape "\\${code}${hex}" on line ${line}`);
        value += String.fromCodePoint(parseInt(hex, 16));
        pos += 2 + hexLength;
        continue;
      }
      if (code === undefined || !(code in ESCAPES)) {
        throw new ValueError(`unknown escape "\\${code ?? ''}" in a double-quoted string on line ${line}; write "\\\\" for a backslash`);
      }
      value += ESCAPES[code];
      pos += 2;
      continue;
    }
    value += ch;
    pos++;
  }
  throw new ValueError(`string opened with ${quote} is never closed on line ${line}`);
}

function expectNothingAfter(rest: string, line: number): void {
  if (rest.trim() !== '' && !/^\s+#/.test(rest)) {
    throw new ValueError(`unexpected text ${JSON.stringify(cut(rest.trim()))} after the value on line ${line}`);
  }
}

/** YAML 1.2 core schema, the parts that matter here: null, booleans, decimal numbers; the rest is text. */
function plainScalar(text: string): YamlScalar {
  if (text === '' || text === '~' || /^(null|Null|NULL)$/.test(text)) return null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?(\d+|\d*\.\d+|\d+\.\d*)([eE][-+]?\d+)?$/.test(text)) return Number(text);
  return text;
}

/** In plain scalars a `#` starts a comment only after whitespace ("issue#3" keeps its #). */
function stripComment(text: string): string {
  const at = text.search(/(^|\s)#/);
  return at < 0 ? text : text.slice(0, at);
}

function isBlankOrComment(line: string): boolean {
  const trimmed = line.trim();
  return trimmed === '' || trimmed.startsWith('#');
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function cut(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
