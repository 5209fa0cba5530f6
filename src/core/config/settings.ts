import * as z from 'zod';
import { concatHooks, hooksSchema } from '../hooks/hook-settings.js';
import { STATUS_LINE_KEYS, statusLineSchema } from '../hooks/status-line-settings.js';
import { ruleProblem } from '../permissions/rules.js';
import { parseJsonc } from './jsonc.js';
import { mcpServersSchema } from './mcp-servers.js';
import { ConfigFileError, readConfigFile } from './read-config-file.js';
import { describeIssue, formatKeyPath } from './zod-issues.js';

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
  /** It takes images: read_file's and a user's are sent to it, else named in their place. */
  images: z.boolean({ error: 'true or false' }).optional(),
};

/** `agents.approve`: `never`, or `over:N` (agents/fan-out-approval.ts reads it). */
export const FAN_OUT_SETTING = /^(never|over:\d{1,4})$/;

const agentsShape = {
  /** Sub-agents running at once; 0 offers the model no agent tools at all. */
  maxConcurrent: wholeNumber({ min: 0, max: 32 }).optional(),
  pollTimeoutMs: wholeNumber({ min: 1 }).optional(),
  maxSessionTokens: wholeNumber({ min: 1 }).optional(),
  /** Dollars the whole session (parent and sub-agents) may spend before every sub-agent stops. */
  maxSessionCostUsd: price().optional(),
  maxTurns: wholeNumber({ min: 1 }).optional(),
  maxTotalTokens: wholeNumber({ min: 1 }).optional(),
  maxDurationMs: wholeNumber({ min: 1 }).optional(),
  /** Dollars one sub-agent (with the sub-agents it starts) may spend; none unless set. */
  maxCostUsd: price().optional(),
  /** Tool calls one sub-agent may make in a run; none unless set. */
  maxToolCalls: wholeNumber({ min: 1 }).optional(),
  /** Levels of sub-agents: 1 = only the main agent starts them; at most 3. */
  maxAgentDepth: wholeNumber({ min: 1, max: 3 }).optional(),
  /** A running sub-agent with no event this long is named once to the main agent (default 5 minutes). */
  stallNoticeMs: wholeNumber({ min: 1 }).optional(),
  /** `never`, or `over:N`: starting more than N sub-agents in one turn asks you (default over:3, never in yolo). */
  approve: z
    .string({ error: '"never" or "over:N", such as "over:3"' })
    .regex(FAN_OUT_SETTING, { error: '"never" or "over:N", such as "over:3"' })
    .optional(),
  /** A command (`npm test`) a merge of worktree jobs runs after applying each job; the user's word, or a trusted folder's. */
  mergeCheck: z
    .string({ error: 'a shell command such as "npm test"' })
    .min(1, { error: 'a shell command such as "npm test"' })
    .max(4096, { error: 'a shell command of at most 4096 characters' })
    .optional(),
  /** How long one run of mergeCheck may take before its processes are killed and the merge stops (default 10 minutes). */
  mergeCheckTimeoutMs: wholeNumber({ min: 1 }).optional(),
  /** Sub-agent jobs go to workers on this Redis queue (docs/remote.md); the user's word, or a trusted folder's. */
  queue: z
    .object(
      {
        url: z.string().regex(/^rediss?:\/\//, 'a redis:// or rediss:// URL'),
        remote: z.string().min(1).optional(),
        namespace: z.string().min(1).optional(),
        retries: wholeNumber({ min: 0, max: 10 }).optional(),
      },
      { error: 'an object such as { "url": "redis://host:6379", "remote": "git@host:repo.git" }' },
    )
    .strict()
    .optional(),
};

const mcpShape = {
  /** How long a server may take to start and list its tools. */
  startupTimeoutMs: wholeNumber({ min: 1 }).optional(),
  /** How long one tool call may run. */
  toolTimeoutMs: wholeNumber({ min: 1 }).optional(),
};

/** A list of permission rules in Claude Code's grammar; a rule that cannot be read stops the start, naming it. */
const ruleList = (example: string) =>
  z
    .array(
      z.string({ error: 'a rule (a string) such as "Bash(npm run test:*)"' }).superRefine((rule, ctx) => {
        const problem = ruleProblem(rule);
        if (problem) ctx.addIssue({ code: 'custom', message: `a permission rule: ${problem}` });
      }),
      { error: `a list of rules such as ${example}` },
    )
    .optional();

const permissionsShape = {
  /**
   * Rules (Claude Code's grammar) for calls that run without asking where the mode would ask:
   * `Bash(npm run test:*)`, `Edit(src/**)`, `mcp__github`, or a tool name pattern `mcp__github__*`.
   */
  allow: ruleList('["Bash(npm run test:*)", "mcp__github__*"]'),
  /** Rules for calls that ask every time, whatever the mode. */
  ask: ruleList('["Bash(git push:*)"]'),
  /** Rules for calls that are refused in every mode, yolo included: `Read(./secrets/**)`, `Bash(rm:*)`. */
  deny: ruleList('["Read(./secrets/**)", "Bash(curl:*)"]'),
  /** Believe an MCP tool's own `readOnlyHint`: such a tool then runs without asking, like read_file. */
  mcpReadOnlyHints: z.boolean({ error: 'true or false' }).optional(),
};

/** `openai.*`: how the OpenAI provider talks to its server. */
const openaiShape = {
  /** `responses` or `chat` for every request; absent: the model's catalogue entry, Chat for a server other than api.openai.com. */
  api: oneOf(['responses', 'chat']).optional(),
};

const settingsShape = {
  provider: oneOf(['anthropic', 'openai']).optional(),
  model: z.string({ error: 'a model id (a string)' }).min(1, { error: 'a model id (a non-empty string)' }).optional(),
  baseURL: z.url({ protocol: /^https?$/, error: 'an http(s) URL such as "http://localhost:8080/v1"' }).optional(),
  toolMode: oneOf(['native', 'text']).optional(),
  permissionMode: oneOf(['default', 'accept-edits', 'plan', 'yolo']).optional(),
  maxRetries: wholeNumber({ min: 0, max: 10 }).optional(),
  firstByteTimeoutMs: wholeNumber({ min: 1 }).optional(),
  idleTimeoutMs: wholeNumber({ min: 1 }).optional(),
  /** One model call's time without an answer, every retry and backoff included (providers/deadline.ts). */
  callDeadlineMs: wholeNumber({ min: 1 }).optional(),
  /**
   * The most one model call waits for rate limits (429, 529) in all, its pauses at the provider's
   * gate added up (providers/rate-limit-wait.ts); past it the call fails, saying so. Default 10 minutes.
   */
  rateLimitWaitMs: wholeNumber({ min: 0 }).optional(),
  maxTurns: wholeNumber({ min: 1 }).optional(),
  maxTokens: wholeNumber({ min: 1 }).optional(),
  /** How hard the model reasons, where it takes an effort (providers/effort.ts): thinking budget or reasoning effort. */
  effort: oneOf(['low', 'medium', 'high', 'max']).optional(),
  openai: z.object(openaiShape, { error: 'an object such as { "api": "responses" }' }).strict().optional(),
  addDirs: z.array(z.string({ error: 'a directory path (a string)' }), { error: 'a list of directory paths' }).optional(),
  wakeOnComplete: z.boolean({ error: 'true or false' }).optional(),
  /** TUI: how to tell an unfocused terminal that a turn or a sub-agent finished. */
  notify: oneOf(['bell', 'osc9', 'off']).optional(),
  /** web_fetch: bytes of a page read at most (the rest is not downloaded). */
  webFetchMaxBytes: wholeNumber({ min: 1, max: 100 * 1024 * 1024 }).optional(),
  /** web_fetch: milliseconds one fetch may take, redirects and body included. */
  webFetchTimeoutMs: wholeNumber({ min: 1, max: 600_000 }).optional(),
  /** Names a sub-agent's `model` may use (`sonnet`, `fast`) → model ids of the session's provider. */
  modelAliases: z
    .record(z.string(), z.string({ error: 'a model id (a string)' }).min(1, { error: 'a model id (a non-empty string)' }), {
      error: 'an object mapping names to model ids, such as { "sonnet": "qwen3-coder" }',
    })
    .optional(),
  models: z
    .record(
      z.string(),
      z.object(modelEntryShape, { error: 'an object such as { "contextWindow": 200000, "maxOutput": 8192 }' }).strict(),
      { error: 'an object mapping model ids to { contextWindow, maxOutput, inputPrice, outputPrice, … }' },
    )
    .optional(),
  agents: z.object(agentsShape, { error: 'an object such as { "maxConcurrent": 4 }' }).strict().optional(),
  // The OS sandbox for bash commands someone approved; a project's value needs the folder's
  // trust unless it is stricter than the user's (SETTING_TRUST in setting-trust.ts).
  sandbox: oneOf(['read-only', 'workspace-write', 'off']).optional(),
  sandboxNetwork: z.boolean({ error: 'true or false' }).optional(),
  mcpServers: mcpServersSchema.optional(),
  mcp: z.object(mcpShape, { error: 'an object such as { "toolTimeoutMs": 120000 }' }).strict().optional(),
  permissions: z.object(permissionsShape, { error: 'an object such as { "allow": ["mcp__github__*"] }' }).strict().optional(),
  /** Commands run at agent events, in Claude Code's format (hooks/hook-settings.ts). */
  hooks: hooksSchema.optional(),
  /** TUI: a command given the session's JSON on stdin, whose first line shows under the input (Claude Code's shape). */
  statusLine: statusLineSchema.optional(),
  /** TUI: a command given a sub-agent's JSON on stdin, whose first line replaces its row's detail. */
  subagentStatusLine: statusLineSchema.optional(),
};

/** The settings file's schema; every key optional, unknown keys rejected. Each key needs a rule in SETTING_TRUST (setting-trust.ts). */
export const settingsSchema = z.object(settingsShape, { error: 'a JSON object of settings' }).strict();

/** Settings from one layer (file, flags) or from all of them merged. */
export type Settings = z.infer<typeof settingsSchema>;

/** One model's figures as settings may give them; prices per million tokens. */
export type ModelSettings = NonNullable<Settings['models']>[string];
export type AgentSettings = NonNullable<Settings['agents']>;
export type McpSettings = NonNullable<Settings['mcp']>;
export type PermissionSettings = NonNullable<Settings['permissions']>;
export type { HookSettings } from '../hooks/hook-settings.js';

/** Keys whose value is an object merged one level deep across layers (a later layer's entry replaces that entry whole). */
const MERGED_BY_ENTRY: ReadonlySet<string> = new Set([
  'models',
  'modelAliases',
  'agents',
  'mcpServers',
  'mcp',
  'permissions',
  'openai',
]);

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

/** A settings file may be at most this big; real ones are a few hundred bytes. */
export const MAX_SETTINGS_BYTES = 1024 * 1024;

/** The user's and the project's settings files, each validated, not merged (trust decides how). */
export interface SettingsFiles {
  user: Settings;
  project: Settings;
  /** The files that existed and were read, user first. */
  sources: string[];
}

/** Reads both settings files; a missing file is `{}`, anything wrong stops with the file named. */
export function readSettingsFiles(files: { userPath?: string; projectPath?: string }): SettingsFiles {
  const sources: string[] = [];
  const read = (file: string | undefined): Settings => {
    if (!file) return {};
    const text = readSettingsFile(file);
    if (text === undefined) return {};
    sources.push(file);
    return parseSettings(text, file);
  };
  const user = read(files.userPath);
  const project = read(files.projectPath);
  return { user, project, sources };
}

/**
 * Parses and validates the text of one settings file; `file` names it in errors. Comments and
 * trailing commas are accepted, as the editors that write these files produce them.
 */
export function parseSettings(text: string, file: string): Settings {
  const parsed = parseJsonc(text.replace(/^\uFEFF/, ''));
  if (!parsed.ok && parsed.tooDeep) {
    const where = `line ${parsed.line}, column ${parsed.column}`;
    throw new SettingsError(`${file}: ${parsed.reason} at ${where}; settings nest a few levels at most`, file);
  }
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
      if (key === 'hooks') {
        // Every layer's hooks run, as in Claude Code: a project's PreToolUse adds to yours.
        merged[key] = concatHooks([merged[key] as Settings['hooks'], value as Settings['hooks']]);
      } else if (key === 'permissions') {
        // Rule lists join across layers, as in Claude Code: a project's deny cannot drop yours.
        merged[key] = mergePermissions(merged[key] as PermissionSettings | undefined, value as PermissionSettings);
      } else if (MERGED_BY_ENTRY.has(key)) {
        const own = Object.fromEntries(Object.entries(value as object).filter(([, v]) => v !== undefined));
        merged[key] = { ...(merged[key] as object | undefined), ...structuredClone(own) };
      } else {
        merged[key] = structuredClone(value);
      }
    }
  }
  return merged as Settings;
}

function mergePermissions(lower: PermissionSettings | undefined, upper: PermissionSettings): PermissionSettings {
  const merged: PermissionSettings = { ...structuredClone(lower ?? {}) };
  for (const list of ['allow', 'ask', 'deny'] as const) {
    const rules = [...(lower?.[list] ?? []), ...(upper[list] ?? [])];
    if (upper[list] !== undefined || lower?.[list] !== undefined) merged[list] = [...new Set(rules)];
  }
  if (upper.mcpReadOnlyHints !== undefined) merged.mcpReadOnlyHints = upper.mcpReadOnlyHints;
  return merged;
}

function readSettingsFile(file: string): string | undefined {
  try {
    return readConfigFile(file, { maxBytes: MAX_SETTINGS_BYTES, what: 'settings file' });
  } catch (error) {
    if (error instanceof ConfigFileError) throw new SettingsError(error.message, file);
    throw error;
  }
}

function knownKeysAt(path: PropertyKey[]): string[] {
  if (path[0] === 'agents') return Object.keys(agentsShape);
  if (path[0] === 'models') return Object.keys(modelEntryShape);
  if (path[0] === 'mcp') return Object.keys(mcpShape);
  if (path[0] === 'openai') return Object.keys(openaiShape);
  if (path[0] === 'permissions') return Object.keys(permissionsShape);
  if (path[0] === 'statusLine' || path[0] === 'subagentStatusLine') return [...STATUS_LINE_KEYS];
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
