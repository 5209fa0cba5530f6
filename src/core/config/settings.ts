import { readFileSync } from 'node:fs';
import * as z from 'zod';

// Every schema node carries its own "expected …" phrase as its zod error, so a failed
// parse already holds the words the user reads; zod's raw text never reaches them.

function wholeNumber(bounds: { min?: number; max?: number } = {}) {
  const { min, max } = bounds;
  const expected =
    min !== undefined && max !== undefined
      ? `a whole number from ${min} to ${max}`
      : min !== undefined
        ? `a whole number of at least ${min}`
        : 'a whole number';
  let schema = z.number({ error: expected }).int({ error: expected });
  if (min !== undefined) schema = schema.min(min, { error: expected });
  if (max !== undefined) schema = schema.max(max, { error: expected });
  return schema;
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `one of ${values.map((v) => JSON.stringify(v)).join(', ')}` });
}

const price = () =>
  z.number({ error: 'a price in dollars per million tokens (0 or more)' }).min(0, {
    error: 'a price in dollars per million tokens (0 or more)',
  });

const modelEntryShape = {
  contextWindow: wholeNumber({ min: 1 }).optional(),
  maxOutput: wholeNumber({ min: 1 }).optional(),
  inputPrice: price().optional(),
  outputPrice: price().optional(),
  cacheReadPrice: price().optional(),
  cacheWritePrice: price().optional(),
};

const agentsShape = {
  maxConcurrent: wholeNumber({ min: 1, max: 32 }).optional(),
  pollTimeoutMs: wholeNumber({ min: 1 }).optional(),
  maxSessionTokens: wholeNumber({ min: 1 }).optional(),
  maxTurns: wholeNumber({ min: 1 }).optional(),
  maxTotalTokens: wholeNumber({ min: 1 }).optional(),
  maxDurationMs: wholeNumber({ min: 1 }).optional(),
};

const settingsShape = {
  provider: oneOf(['anthropic', 'openai']).optional(),
  model: z.string({ error: 'a model id (a string)' }).min(1, { error: 'a model id (a non-empty string)' }).optional(),
  baseURL: z.url({ protocol: /^https?$/, error: 'an http(s) URL such as "http://localhost:8080/v1"' }).optional(),
  toolMode: oneOf(['native', 'text']).optional(),
  permissionMode: oneOf(['default', 'accept-edits', 'plan', 'yolo']).optional(),
  maxRetries: wholeNumber({ min: 0, max: 10 }).optional(),
  maxTurns: wholeNumber({ min: 1 }).optional(),
  maxTokens: wholeNumber({ min: 1 }).optional(),
  addDirs: z.array(z.string({ error: 'a directory path (a string)' }), { error: 'a list of directory paths' }).optional(),
  wakeOnComplete: z.boolean({ error: 'true or false' }).optional(),
  models: z
    .record(
      z.string(),
      z.object(modelEntryShape, { error: 'an object such as { "contextWindow": 200000, "maxOutput": 8192 }' }).strict(),
      { error: 'an object mapping model ids to { contextWindow, maxOutput, inputPrice, outputPrice, … }' },
    )
    .optional(),
  agents: z.object(agentsShape, { error: 'an object such as { "maxConcurrent": 4 }' }).strict().optional(),
};

/** The settings file's schema; every key optional, unknown keys rejected. */
export const settingsSchema = z.object(settingsShape, { error: 'a JSON object of settings' }).strict();

/** Settings from one layer (file, flags) or from all of them merged. */
export type Settings = z.infer<typeof settingsSchema>;

/** One model's figures as settings may give them; prices per million tokens. */
export type ModelSettings = NonNullable<Settings['models']>[string];
export type AgentSettings = NonNullable<Settings['agents']>;

/** Values that do not depend on the environment (provider and model are the CLI's call). */
export const SETTINGS_DEFAULTS: Settings = {
  toolMode: 'native',
  permissionMode: 'default',
  agents: {
    maxConcurrent: 4,
    pollTimeoutMs: 10 * 60_000,
    maxTurns: 10,
    maxTotalTokens: 1_000_000,
    maxDurationMs: 300_000,
  },
};

/** A settings file (or flag layer) that cannot be used; the message is one line for the user. */
export class SettingsError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly keyPath?: string,
  ) {
    super(message);
    this.name = 'SettingsError';
  }
}

/**
 * Reads the user's and the project's settings; the project wins, key by key
 * (`models` and `agents` merged one level deep). A missing file is no error.
 */
export function loadSettings(files: { userPath?: string; projectPath?: string }): {
  settings: Settings;
  /** The files that existed and were read, user first. */
  sources: string[];
} {
  const sources: string[] = [];
  const layers: Settings[] = [];
  for (const file of [files.userPath, files.projectPath]) {
    if (!file) continue;
    const text = readSettingsFile(file);
    if (text === undefined) continue;
    sources.push(file);
    layers.push(parseSettings(text, file));
  }
  return { settings: mergeSettings(...layers), sources };
}

/** Parses and validates the text of one settings file; `file` names it in errors. */
export function parseSettings(text: string, file: string): Settings {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (error) {
    throw new SettingsError(`${file}: ${describeJsonError(body, error)}`, file);
  }
  return validateSettings(raw, file);
}

/** Validates an already-parsed layer (a file's JSON, or flags the CLI gathered). */
export function validateSettings(raw: unknown, source: string): Settings {
  const result = settingsSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    const keyPath = formatKeyPath([...issue.path, key]);
    const known = knownKeysAt(issue.path);
    const guess = closest(key, known);
    const hint = guess ? ` (did you mean "${guess}"?)` : '';
    throw new SettingsError(
      `${source}: ${keyPath}: unknown setting${hint}; expected one of ${known.join(', ')}`,
      source,
      keyPath,
    );
  }
  const keyPath = formatKeyPath(issue.path);
  const got = describeValue(valueAt(raw, issue.path));
  if (issue.path.length === 0) {
    throw new SettingsError(`${source}: expected ${issue.message}, got ${got}`, source, '');
  }
  throw new SettingsError(`${source}: ${keyPath}: expected ${issue.message}, got ${got}`, source, keyPath);
}

/** Layers in rising precedence (defaults, user, project, flags): later wins, undefined never does. */
export function mergeSettings(...layers: Array<Settings | undefined>): Settings {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (key === 'models' || key === 'agents') {
        const own = Object.fromEntries(Object.entries(value as object).filter(([, v]) => v !== undefined));
        merged[key] = { ...(merged[key] as object | undefined), ...structuredClone(own) };
      } else {
        merged[key] = structuredClone(value);
      }
    }
  }
  return merged as Settings;
}

function readSettingsFile(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    const reason = code === 'EISDIR' ? 'it is a directory, not a file' : (error as Error).message;
    throw new SettingsError(`${file}: cannot read the settings file: ${reason}`, file);
  }
}

function knownKeysAt(path: PropertyKey[]): string[] {
  if (path[0] === 'agents') return Object.keys(agentsShape);
  if (path[0] === 'models') return Object.keys(modelEntryShape);
  return Object.keys(settingsShape);
}

/** The known key within two edits of `key` (case ignored), for a "did you mean" hint. */
function closest(key: string, known: string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/** `agents.maxConcurrent`, `models["gpt-4.1"].inputPrice`, `addDirs[2]`. */
function formatKeyPath(path: PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(part))) out += out ? `.${String(part)}` : String(part);
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let node = root;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return node;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  const shown = text.length > 40 ? `${text.slice(0, 37)}...` : text;
  if (Array.isArray(value)) return `a list ${shown}`;
  if (value !== null && typeof value === 'object') return `an object ${shown}`;
  return shown;
}

/**
 * `invalid JSON at line 3, column 15: …`. V8's own messages sometimes omit the position
 * ("Unexpected token '}', … is not valid JSON"), so the text is scanned to find it.
 */
function describeJsonError(text: string, error: unknown): string {
  const found = findJsonSyntaxError(text);
  if (!found) return `invalid JSON: ${(error as Error).message}`;
  const before = text.slice(0, found.offset);
  const line = before.split('\n').length;
  const column = found.offset - before.lastIndexOf('\n');
  return `invalid JSON at line ${line}, column ${column}: ${found.reason}`;
}

class JsonSyntax extends Error {}

/** The first syntax error of `text` as a JSON document, or undefined when it has none. */
function findJsonSyntaxError(text: string): { offset: number; reason: string } | undefined {
  let i = 0;
  const here = () => {
    if (i >= text.length) return 'the end of the file';
    const word = /[A-Za-z0-9_.+-]+/y;
    word.lastIndex = i;
    return JSON.stringify(word.test(text) ? text.slice(i, Math.min(word.lastIndex, i + 20)) : text[i]);
  };
  const fail = (expected: string): never => {
    if (text.startsWith('//', i) || text.startsWith('/*', i)) throw new JsonSyntax('comments are not allowed in JSON');
    throw new JsonSyntax(`expected ${expected}, found ${here()}`);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail('the closing quote of the string');
      const c = text[i];
      if (c === '"') return void i++;
      if (text.charCodeAt(i) < 0x20) fail('the closing quote of the string before the end of the line');
      if (c !== '\\') {
        i++;
        continue;
      }
      const escape = text[i + 1] ?? '';
      const valid = escape === 'u' ? /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)) : escape !== '' && '"\\/bfnrt'.includes(escape);
      if (!valid) fail('a valid escape such as \\n or \\" after the backslash');
      i += escape === 'u' ? 6 : 2;
    }
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) return void i++;
      for (;;) {
        space();
        if (text[i] === close) throw new JsonSyntax(`a trailing comma before "${close}" (JSON allows none; remove it)`);
        if (c === '{') {
          if (text[i] !== '"') fail('a key in double quotes');
          string();
          space();
          if (text[i] !== ':') fail('":" after the key');
          i++;
        }
        value();
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === close) return void i++;
        fail(`"," or "${close}"`);
      }
    }
    if (c === '"') return string();
    const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    number.lastIndex = i;
    if (number.test(text)) return void (i = number.lastIndex);
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, i)) return void (i += literal.length);
    }
    fail('a value (a string, number, object, list, true, false or null)');
  };
  try {
    value();
    space();
    if (i < text.length) fail('nothing after the JSON value');
    return undefined;
  } catch (error) {
    if (error instanceof JsonSyntax) return { offset: i, reason: error.message };
    throw error;
  }
}
