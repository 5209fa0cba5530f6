/**
 * A small glob matcher for `/`-separated relative paths: `*`, `**`, `?`, `[...]`, `{a,b}`.
 * `*` and `?` never cross a `/`; `**` as a whole segment spans any number of segments.
 * Dotfiles are matched like any other name: the model asks for what it wants.
 */

export interface GlobOptions {
  /** Expand `{a,b}` alternatives (gitignore patterns treat braces literally). */
  braces?: boolean;
}

/** Most alternatives a brace expansion may produce, so a hostile pattern stays cheap. */
const MAX_EXPANSIONS = 256;

/** Compiles a glob into an anchored regular expression over a relative `/` path. */
export function compileGlob(pattern: string, options: GlobOptions = {}): RegExp {
  const alternatives = options.braces === false ? [pattern] : expandBraces(pattern);
  return new RegExp(`^(?:${alternatives.map(globBody).join('|')})$`);
}

/** True when the path (relative, `/`-separated) matches the glob. */
export function matchGlob(pattern: string, relPath: string, options: GlobOptions = {}): boolean {
  return compileGlob(pattern, options).test(relPath);
}

/** True when the text uses any glob syntax. */
export function hasMagic(text: string): boolean {
  return /[*?[{]/.test(text);
}

/** The leading segments of a pattern that hold no glob syntax: where a walk can start. */
export function literalPrefix(pattern: string): string {
  const segments = pattern.split('/');
  const literal: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (hasMagic(segment) || segment.includes('\\')) break;
    literal.push(segment);
  }
  return literal.join('/');
}

/** `a{b,c{d,e}}f` → `abf`, `acdf`, `acef`; an unbalanced or comma-less brace stays literal. */
export function expandBraces(pattern: string): string[] {
  const open = findBrace(pattern);
  if (!open) return [pattern];
  const { start, end, parts } = open;
  const head = pattern.slice(0, start);
  const tails = expandBraces(pattern.slice(end + 1));
  const out: string[] = [];
  for (const part of parts) {
    for (const middle of expandBraces(part)) {
      for (const tail of tails) {
        if (out.length >= MAX_EXPANSIONS) return out;
        out.push(head + middle + tail);
      }
    }
  }
  return out;
}

/** The first `{…}` holding a top-level comma, with its alternatives. */
function findBrace(pattern: string): { start: number; end: number; parts: string[] } | undefined {
  for (let start = 0; start < pattern.length; start++) {
    if (pattern[start] === '\\') {
      start++;
      continue;
    }
    if (pattern[start] !== '{') continue;
    let depth = 0;
    let partStart = start + 1;
    const parts: string[] = [];
    for (let i = start; i < pattern.length; i++) {
      const ch = pattern[i];
      if (ch === '\\') {
        i++;
      } else if (ch === '{') {
        depth++;
      } else if (ch === '}') {
        depth--;
        if (depth === 0) {
          parts.push(pattern.slice(partStart, i));
          if (parts.length > 1) return { start, end: i, parts };
          break;
        }
      } else if (ch === ',' && depth === 1) {
        parts.push(pattern.slice(partStart, i));
        partStart = i + 1;
      }
    }
  }
  return undefined;
}

/** The regex source of one brace-free pattern. */
function globBody(pattern: string): string {
  const segments = pattern.split('/').filter((s, i, all) => !(s === '**' && all[i - 1] === '**'));
  let source = '';
  segments.forEach((segment, i) => {
    const first = i === 0;
    const last = i === segments.length - 1;
    const afterGlobstar = !first && segments[i - 1] === '**';
    if (segment === '**') {
      if (segments.length === 1) source += '.*';
      else if (first) source += '(?:.*/)?';
      else if (last) source += '/.*';
      else source += '/(?:.*/)?';
      return;
    }
    if (!first && !afterGlobstar) source += '/';
    source += segmentSource(segment);
  });
  return source;
}

/** The regex source of one path segment: `*`, `?`, `[...]`, `\x`, literals. */
function segmentSource(segment: string): string {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i];
    if (ch === '*') {
      while (segment[i + 1] === '*') i++;
      out += '[^/]*';
    } else if (ch === '?') {
      out += '[^/]';
    } else if (ch === '\\' && i + 1 < segment.length) {
      out += escapeRegex(segment[++i]);
    } else if (ch === '[') {
      const cls = characterClass(segment, i);
      if (cls) {
        out += cls.source;
        i = cls.end;
      } else {
        out += '\\[';
      }
    } else {
      out += escapeRegex(ch);
    }
  }
  return out;
}

/** `[abc]`, `[a-z]`, `[!x]`, `[^x]` starting at `start`; undefined when unclosed. */
function characterClass(segment: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (segment[i] === '!' || segment[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  // A `]` right after the opening bracket is a literal member, as in POSIX.
  if (segment[i] === ']') {
    body += '\\]';
    i++;
  }
  for (; i < segment.length; i++) {
    const ch = segment[i];
    if (ch === ']') return { source: `[${negate ? '^/' : ''}${body}]`, end: i };
    if (ch === '\\' && i + 1 < segment.length) body += escapeRegex(segment[++i]);
    else if (ch === '-') body += '-';
    else body += ch === '^' || ch === '[' ? `\\${ch}` : ch;
  }
  return undefined;
}

function escapeRegex(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch;
}
