/**
 * Wildcards for permission rules, matched without regular expressions: a rule can come from a
 * repository (its deny and ask rules apply untrusted), and `*a*a*a*a*a*a*a*a*b` as a regular
 * expression, or through picomatch, backtracks for minutes on a 40-character name. Here a
 * match costs at most the pattern's length times the text's.
 */

type Token = { kind: 'star' } | { kind: 'one' } | { kind: 'class'; test: (c: string) => boolean } | { kind: 'char'; c: string };

/** `*` any run of characters, `?` one, `[abc]`, `[a-z]`, `[!x]` a class; anything else itself. */
function tokenize(pattern: string, options: { starOnly?: boolean } = {}): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (options.starOnly) tokens.push({ kind: 'char', c });
    else if (c === '?') tokens.push({ kind: 'one' });
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) tokens.push({ kind: 'char', c });
      else {
        tokens.push({ kind: 'class', test: characterClass(pattern.slice(i + 1, close)) });
        i = close;
      }
    } else if (c === '\\' && i + 1 < pattern.length) tokens.push({ kind: 'char', c: pattern[++i]! });
    else tokens.push({ kind: 'char', c });
  }
  return tokens;
}

function characterClass(body: string): (c: string) => boolean {
  const negated = body.startsWith('!') || body.startsWith('^');
  const chars = negated ? body.slice(1) : body;
  const ranges: Array<[string, string]> = [];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i + 1] === '-' && i + 2 < chars.length) {
      ranges.push([chars[i]!, chars[i + 2]!]);
      i += 2;
    } else ranges.push([chars[i]!, chars[i]!]);
  }
  return (c) => ranges.some(([from, to]) => c >= from && c <= to) !== negated;
}

/** Two pointers and the last star to fall back to: no pattern makes this worse than O(pattern · text). */
function matchTokens(tokens: Token[], text: string): boolean {
  let p = 0;
  let t = 0;
  let starP = -1;
  let starT = 0;
  while (t < text.length) {
    const token = tokens[p];
    if (token && token.kind === 'star') {
      starP = p++;
      starT = t;
      continue;
    }
    if (token && matchesOne(token, text[t]!)) {
      p++;
      t++;
      continue;
    }
    if (starP === -1) return false;
    p = starP + 1;
    t = ++starT;
  }
  while (tokens[p]?.kind === 'star') p++;
  return p === tokens.length;
}

function matchesOne(token: Exclude<Token, { kind: 'star' }>, c: string): boolean {
  if (token.kind === 'one') return true;
  if (token.kind === 'class') return token.test(c);
  return token.c === c;
}

/**
 * A wildcard pattern over a whole string (a tool name; with `starOnly`, a command, where `?` and
 * `[` are only themselves): `*` crosses everything.
 */
export function wildcardMatcher(pattern: string, options: { starOnly?: boolean } = {}): (text: string) => boolean {
  const tokens = tokenize(pattern, options);
  return (text) => matchTokens(tokens, text);
}

/**
 * A path pattern over a `/`-separated relative path, as gitignore reads one: `**` is any number
 * of folders (none included), `*` and `?` stay within one name, dot files match. Segments are
 * matched by dynamic programming: O(pattern segments · path segments) segment matches.
 */
export function pathGlobMatcher(pattern: string): (relative: string) => boolean {
  const segments = pattern.split('/').filter((segment) => segment !== '');
  const compiled = segments.map((segment) => (segment === '**' ? undefined : tokenize(segment)));
  return (relative) => {
    const parts = relative.split('/').filter((part) => part !== '');
    const memo = new Map<number, boolean>();
    const match = (i: number, j: number): boolean => {
      const key = i * (parts.length + 1) + j;
      const known = memo.get(key);
      if (known !== undefined) return known;
      let result: boolean;
      if (i === compiled.length) result = j === parts.length;
      else if (compiled[i] === undefined) result = match(i + 1, j) || (j < parts.length && match(i, j + 1));
      else result = j < parts.length && matchTokens(compiled[i]!, parts[j]!) && match(i + 1, j + 1);
      memo.set(key, result);
      return result;
    };
    return match(0, 0);
  };
}
