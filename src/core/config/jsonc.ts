import { type Node, type ParseError, SyntaxKind, createScanner, parseTree, printParseErrorCode } from 'jsonc-parser';

/** A parsed JSONC text, or where and why it is not one (line and column 1-based). */
export type JsoncResult =
  { ok: true; value: unknown } | { ok: false; line: number; column: number; reason: string; tooDeep?: true };

/** Deeper than any settings file needs; parsing recurses once per level, so the stack sets a bound anyway. */
export const MAX_JSONC_DEPTH = 64;

/**
 * Parses JSON with comments and trailing commas, as editors write settings files
 * (VS Code's own parser). An empty text, or one holding only comments, is `undefined`.
 * Nesting past `MAX_JSONC_DEPTH` is an error at the bracket that goes too deep.
 */
export function parseJsonc(text: string): JsoncResult {
  const tooDeep = firstTooDeep(text);
  if (tooDeep !== undefined) {
    return {
      ok: false,
      ...lineAndColumn(text, tooDeep),
      reason: `nested more than ${MAX_JSONC_DEPTH} levels deep`,
      tooDeep: true,
    };
  }
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  if (errors.length > 0) {
    const error = errors[0];
    return { ok: false, ...lineAndColumn(text, error.offset), reason: reasonOf(error, text) };
  }
  return { ok: true, value: tree === undefined ? undefined : valueOf(tree) };
}

/**
 * The offset of the first `{` or `[` past the depth limit. The scanner reads tokens without
 * recursing, and knows strings and comments, so brackets inside them do not count.
 */
function firstTooDeep(text: string): number | undefined {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    if (token === SyntaxKind.OpenBraceToken || token === SyntaxKind.OpenBracketToken) {
      depth += 1;
      if (depth > MAX_JSONC_DEPTH) return scanner.getTokenOffset();
    } else if ((token === SyntaxKind.CloseBraceToken || token === SyntaxKind.CloseBracketToken) && depth > 0) {
      depth -= 1;
    }
  }
  return undefined;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/**
 * The tree's value, built here rather than by jsonc-parser's `parse`, which assigns keys with
 * `object[key] = value`: a `"__proto__"` key would then replace the object's prototype, and its
 * keys would reach the schema as inherited settings that no "unknown key" check can see.
 */
function valueOf(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const object: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? [];
        if (!key || !value) continue;
        Object.defineProperty(object, String(key.value), {
          value: valueOf(value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    }
    case 'array':
      return (node.children ?? []).map(valueOf);
    default:
      return node.value;
  }
}

function reasonOf(error: ParseError, text: string): string {
  const found = foundAt(text, error);
  switch (printParseErrorCode(error.error)) {
    case 'InvalidSymbol':
    case 'ValueExpected':
      return `expected a value (a string in double quotes, number, object, list, true, false or null), found ${found}`;
    case 'PropertyNameExpected':
      return `expected a key in double quotes, found ${found}`;
    case 'ColonExpected':
      return `expected ":" after the key, found ${found}`;
    case 'CommaExpected':
      return `expected "," between two entries, found ${found}`;
    case 'CloseBraceExpected':
      return `expected "}" to close the object, found ${found}`;
    case 'CloseBracketExpected':
      return `expected "]" to close the list, found ${found}`;
    case 'EndOfFileExpected':
      return `expected nothing after the JSON value, found ${found}`;
    case 'InvalidCommentToken':
    case 'UnexpectedEndOfComment':
      return 'a comment opened with /* is never closed; add */';
    case 'UnexpectedEndOfString':
      return 'a string is not closed before the end of the line; add the closing "';
    case 'InvalidNumberFormat':
    case 'UnexpectedEndOfNumber':
      return `expected a number such as 12 or 0.5, found ${found}`;
    case 'InvalidUnicode':
      return 'a \\u escape needs four hex digits, e.g. \\u00e9';
    case 'InvalidEscapeCharacter':
      return 'unknown escape in a string; write \\\\ for a backslash';
    case 'InvalidCharacter':
      return 'a control character inside a string; write it as an escape such as \\n or \\t';
    default:
      return `unexpected ${found}`;
  }
}

/** The token an error points at, quoted and cut short, or "the end of the file". */
function foundAt(text: string, error: ParseError): string {
  if (error.offset >= text.length) return 'the end of the file';
  const token = text.slice(error.offset, error.offset + Math.max(error.length, 1));
  return JSON.stringify(token.length > 20 ? `${token.slice(0, 20)}...` : token);
}
