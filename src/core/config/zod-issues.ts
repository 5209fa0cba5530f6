import type * as z from 'zod';

// The schemas of user-written files (settings, agent definitions) give every node its own
// "expected …" phrase as its zod error, so a failed parse already holds the words the user
// reads; these helpers add where the value sits and what was found there. zod's raw text
// never reaches the user.

/** `field: expected …, got …` for the first issue, or `expected …, got …` for the value as a whole. */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown): { keyPath: string; text: string } {
  const keyPath = formatKeyPath(issue.path);
  const got = describeValue(valueAt(input, issue.path));
  const expectation = `expected ${issue.message}, got ${got}`;
  return { keyPath, text: keyPath === '' ? expectation : `${keyPath}: ${expectation}` };
}

/** `agents.maxConcurrent`, `models["gpt-4.1"].inputPrice`, `addDirs[2]`. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(part))) out += out ? `.${String(part)}` : String(part);
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

/** The value at `path` in what was parsed; undefined when it is not there. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const part of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return node;
}

/** A value as the user wrote it, short: `"four"`, `40`, `a list [1,2]`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  // JSON.stringify gives undefined only for functions and symbols, whose String() is readable.
  const text = JSON.stringify(value) ?? String(value as string);
  const shown = text.length > 40 ? `${text.slice(0, 37)}...` : text;
  if (Array.isArray(value)) return `a list ${shown}`;
  if (value !== null && typeof value === 'object') return `an object ${shown}`;
  return shown;
}
