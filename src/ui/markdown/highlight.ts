import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

/** The common languages only: highlight.js core plus these keeps the TUI bundle small. */
const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  markdown,
  python,
  ruby,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};

/**
 * highlight.js with the languages registered, on first use: registering runs each language's
 * definition (about 10 ms for these), which the TUI's start-up need not pay before its first frame.
 */
function highlighter(): typeof hljs {
  if (!hljs.getLanguage('bash')) for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
  return hljs;
}

/** A run of code in one colour (undefined: the terminal's own). */
export interface CodeSegment {
  text: string;
  color?: string;
  dim?: boolean;
}

/** highlight.js scopes to terminal colours; the first part of a scope decides (`title.function` → `title`). */
const SCOPE_COLORS: Record<string, Omit<CodeSegment, 'text'>> = {
  keyword: { color: 'magenta' },
  built_in: { color: 'cyan' },
  type: { color: 'cyan' },
  class: { color: 'cyan' },
  literal: { color: 'yellow' },
  number: { color: 'yellow' },
  string: { color: 'green' },
  regexp: { color: 'red' },
  symbol: { color: 'yellow' },
  title: { color: 'blue' },
  attr: { color: 'cyan' },
  attribute: { color: 'cyan' },
  property: { color: 'cyan' },
  variable: { color: 'red' },
  params: {},
  meta: { dim: true },
  comment: { dim: true },
  doctag: { dim: true },
  tag: { color: 'blue' },
  name: { color: 'blue' },
  selector: { color: 'magenta' },
  section: { color: 'blue' },
  bullet: { color: 'yellow' },
  addition: { color: 'green' },
  deletion: { color: 'red' },
};

/** Whether code in `lang` (a name or an alias: ts, sh, py, yml, html…) gets colours. */
export function knownLanguage(lang: string | undefined): boolean {
  return Boolean(lang && highlighter().getLanguage(lang));
}

/** Code as lines of coloured segments; plain lines when the language is unknown. */
export function highlightCode(code: string, lang: string | undefined): CodeSegment[][] {
  if (!lang || !highlighter().getLanguage(lang)) return code.split('\n').map((text) => [{ text }]);
  let html: string;
  try {
    html = highlighter().highlight(code, { language: lang, ignoreIllegals: true }).value;
  } catch {
    return code.split('\n').map((text) => [{ text }]);
  }
  return htmlToLines(html);
}

/** highlight.js's output (`<span class="hljs-keyword">`, entities) as lines of segments. */
function htmlToLines(html: string): CodeSegment[][] {
  const lines: CodeSegment[][] = [[]];
  const stack: Omit<CodeSegment, 'text'>[] = [];
  const style = () => {
    for (let i = stack.length - 1; i >= 0; i -= 1) if (stack[i]!.color || stack[i]!.dim) return stack[i]!;
    return {};
  };
  for (const match of html.matchAll(/<span class="([^"]*)">|<\/span>|([^<]+)/g)) {
    if (match[1] !== undefined) {
      const scope = match[1]
        .split(' ')[0]!
        .replace(/^hljs-/, '')
        .split('.')[0]!;
      stack.push(SCOPE_COLORS[scope] ?? {});
    } else if (match[0] === '</span>') {
      stack.pop();
    } else if (match[2] !== undefined) {
      const parts = decodeEntities(match[2]).split('\n');
      parts.forEach((text, i) => {
        if (i > 0) lines.push([]);
        if (text) lines[lines.length - 1]!.push({ text, ...style() });
      });
    }
  }
  return lines;
}

function decodeEntities(text: string): string {
  return text.replace(
    /&(lt|gt|amp|quot|#x27|#39);/g,
    (_, name: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', '#x27': "'", '#39': "'" })[name]!,
  );
}
