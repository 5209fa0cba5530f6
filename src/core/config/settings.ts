import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { parseJsonc } from './jsonc.js';
import { describeIssue, formatKeyPath } from './zod-issues.js';
import { errnoCode } from '../tools/fs-errors.js';

// Every schema node carries its own "expected …" phrase as its zod error (see zod-issues.ts).

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
  // The OS sandbox for bash commands someone approved; read from the user's settings and flags
  // only, never a project's (see sandbox/config.ts).
  sandbox: oneOf(['read-only', 'workspace-write', 'off']).optional(),
  sandboxNetwork: z.boolean({ error: 'true or false' }).optional(),
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

/**
 * Parses and validates the text of one settings file; `file` names it in errors. Comments and
 * trailing commas are accepted, as the editors that write these files produce them.
 */
export function parseSettings(text: string, file: string): Settings {
  const parsed = parseJsonc(text.replace(/^\uFEFF/, ''));
  if (!parsed.ok) {
    throw new SettingsError(`${file}: invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`, file);
  }
  return parsed.value === undefined ? {} : validateSettings(parsed.value, file);
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
  const { keyPath, text } = describeIssue(issue, raw);
  throw new SettingsError(`${source}: ${text}`, source, keyPath);
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
    const code = errnoCode(error);
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

