import { DEFAULT_CALL_DEADLINE_MS } from '../../../src/core/providers/deadline.js';
import { DEFAULT_RATE_LIMIT_WAIT_MS } from '../../../src/core/providers/rate-limit-wait.js';
import { describe, expect, it } from 'vitest';
import { type SettingsLayers, resolveSettings } from '../../../src/core/config/project-trust.js';
import { resolveProviderConfig } from '../../../src/core/config/provider-config.js';
import { AGENT_BOUNDS, MCP_BOUNDS, MODEL_BOUNDS, NUMBER_BOUNDS } from '../../../src/core/config/setting-limits.js';
import { SETTINGS_DEFAULTS, type Settings, settingsSchema } from '../../../src/core/config/settings.js';
import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS } from '../../../src/core/mcp/manager.js';
import { DEFAULT_TIMEOUTS } from '../../../src/core/providers/timeouts.js';
import { FALLBACK_MODEL, KNOWN_MODELS, modelInfo } from '../../../src/core/providers/models.js';
import { HEADLESS_MAX_TURNS } from '../../../src/core/session/open-session.js';
import { WEB_FETCH_DEFAULTS } from '../../../src/core/tools/web-fetch.js';

const layers = (project: Settings, user: Settings = {}, flags: Settings = {}): SettingsLayers => ({
  defaults: SETTINGS_DEFAULTS,
  user,
  project,
  flags,
});

const untrusted = (project: Settings, user?: Settings, flags?: Settings) =>
  resolveSettings(layers(project, user, flags), { trusted: false });
const trusted = (project: Settings, user?: Settings, flags?: Settings) =>
  resolveSettings(layers(project, user, flags), { trusted: true });

interface Raise {
  name: string;
  user?: Settings;
  project: Settings;
  /** The key reported as guarded, and the phrase the trust prompt shows for it. */
  key: keyof Settings;
  why: string;
  /** The figure in effect untrusted (the user's or the default), and with the folder trusted. */
  read: (settings: Settings) => unknown;
  untrusted: unknown;
  trusted: unknown;
}

// The attacks, one by one: each applied untrusted before limits had a rule.
const raises: Raise[] = [
  {
    name: 'maxTurns past the headless cap',
    project: { maxTurns: 100_000 },
    key: 'maxTurns',
    why: 'raises maxTurns from 100 (the default) to 100000',
    read: (s) => s.maxTurns,
    untrusted: undefined,
    trusted: 100_000,
  },
  {
    name: "maxTurns past the user's own",
    user: { maxTurns: 20 },
    project: { maxTurns: 50 },
    key: 'maxTurns',
    why: 'raises maxTurns from 20 to 50',
    read: (s) => s.maxTurns,
    untrusted: 20,
    trusted: 50,
  },
  {
    name: 'a first-byte timeout of a day turns the hang guard off',
    project: { firstByteTimeoutMs: 86_400_000 },
    key: 'firstByteTimeoutMs',
    why: 'raises firstByteTimeoutMs from 60000 (the default) to 86400000',
    read: (s) => s.firstByteTimeoutMs,
    untrusted: undefined,
    trusted: 86_400_000,
  },
  {
    name: 'an idle timeout of a day',
    user: { idleTimeoutMs: 120_000 },
    project: { idleTimeoutMs: 86_400_000 },
    key: 'idleTimeoutMs',
    why: 'raises idleTimeoutMs from 120000 to 86400000',
    read: (s) => s.idleTimeoutMs,
    untrusted: 120_000,
    trusted: 86_400_000,
  },
  {
    name: 'ten retries of every call',
    project: { maxRetries: 10 },
    key: 'maxRetries',
    why: 'raises maxRetries from 4 (the default) to 10',
    read: (s) => s.maxRetries,
    untrusted: undefined,
    trusted: 10,
  },
  {
    name: 'maxTokens per call',
    project: { maxTokens: 128_000 },
    key: 'maxTokens',
    why: 'raises maxTokens from 8192 (the default) to 128000',
    read: (s) => s.maxTokens,
    untrusted: undefined,
    trusted: 128_000,
  },
  {
    name: "the session's token budget",
    user: { agents: { maxSessionTokens: 100_000 } },
    project: { agents: { maxSessionTokens: 1_000_000_000 } },
    key: 'agents',
    why: 'raises agents.maxSessionTokens from 100000 to 1000000000',
    read: (s) => s.agents?.maxSessionTokens,
    untrusted: 100_000,
    trusted: 1_000_000_000,
  },
  {
    name: "the session's cost budget",
    user: { agents: { maxSessionCostUsd: 5 } },
    project: { agents: { maxSessionCostUsd: 1_000_000 } },
    key: 'agents',
    why: 'raises agents.maxSessionCostUsd from 5 to 1000000',
    read: (s) => s.agents?.maxSessionCostUsd,
    untrusted: 5,
    trusted: 1_000_000,
  },
  {
    name: 'sub-agent turns',
    project: { agents: { maxTurns: 1000 } },
    key: 'agents',
    why: 'raises agents.maxTurns from 10 to 1000',
    read: (s) => s.agents?.maxTurns,
    untrusted: 10,
    trusted: 1000,
  },
  {
    name: 'sub-agent tokens and time',
    project: { agents: { maxTotalTokens: 50_000_000, maxDurationMs: 86_400_000 } },
    key: 'agents',
    why: 'raises agents.maxTotalTokens from 1000000 to 50000000; raises agents.maxDurationMs from 300000 to 86400000',
    read: (s) => [s.agents?.maxTotalTokens, s.agents?.maxDurationMs],
    untrusted: [1_000_000, 300_000],
    trusted: [50_000_000, 86_400_000],
  },
  {
    name: 'sub-agents at once',
    project: { agents: { maxConcurrent: 32 } },
    key: 'agents',
    why: 'raises agents.maxConcurrent from 4 to 32',
    read: (s) => s.agents?.maxConcurrent,
    untrusted: 4,
    trusted: 32,
  },
  {
    name: 'sub-agents of sub-agents',
    project: { agents: { maxAgentDepth: 3 } },
    key: 'agents',
    why: 'raises agents.maxAgentDepth from 1 (the default) to 3',
    read: (s) => s.agents?.maxAgentDepth,
    untrusted: undefined,
    trusted: 3,
  },
  {
    name: 'a poll of 1 ms: smaller is looser, every wait becomes a model call',
    project: { agents: { pollTimeoutMs: 1 } },
    key: 'agents',
    why: 'lowers agents.pollTimeoutMs from 600000 to 1',
    read: (s) => s.agents?.pollTimeoutMs,
    untrusted: 600_000,
    trusted: 1,
  },
  {
    name: 'prices of 0, so the cost shows 0 and --max-budget-usd never trips',
    project: {
      models: { 'claude-sonnet-4-5': { inputPrice: 0, outputPrice: 0, cacheReadPrice: 0, cacheWritePrice: 0 } },
    },
    key: 'models',
    why: 'sets prices of models["claude-sonnet-4-5"]: inputPrice 0, outputPrice 0, cacheReadPrice 0, cacheWritePrice 0 (prices decide what your cost budgets count)',
    read: (s) => modelInfo('claude-sonnet-4-5', s.models).inputPrice,
    untrusted: 3,
    trusted: 0,
  },
  {
    name: "a price below the user's own",
    user: { models: { local: { inputPrice: 2, outputPrice: 6 } } },
    project: { models: { local: { outputPrice: 0.5 } } },
    key: 'models',
    why: 'sets prices of models.local: outputPrice 0.5 (prices decide what your cost budgets count)',
    read: (s) => modelInfo('local', s.models).outputPrice,
    untrusted: 6,
    trusted: 0.5,
  },
  {
    name: 'a context window bigger than any model has',
    project: { models: { 'my-model': { contextWindow: 10_000_000, maxOutput: 1_000_000 } } },
    key: 'models',
    why: 'raises models["my-model"].contextWindow from 128000 (the default) to 10000000; raises models["my-model"].maxOutput from 8192 (the default) to 1000000',
    read: (s) => modelInfo('my-model', s.models).contextWindow,
    untrusted: FALLBACK_MODEL.contextWindow,
    trusted: 10_000_000,
  },
  {
    name: 'web_fetch bytes and time',
    project: { webFetchMaxBytes: 100 * 1024 * 1024, webFetchTimeoutMs: 600_000 },
    key: 'webFetchMaxBytes',
    why: 'raises webFetchMaxBytes from 5242880 (the default) to 104857600',
    read: (s) => [s.webFetchMaxBytes, s.webFetchTimeoutMs],
    untrusted: [undefined, undefined],
    trusted: [100 * 1024 * 1024, 600_000],
  },
  {
    name: 'MCP timeouts',
    project: { mcp: { startupTimeoutMs: 86_400_000, toolTimeoutMs: 86_400_000 } },
    key: 'mcp',
    why: 'raises mcp.startupTimeoutMs from 30000 (the default) to 86400000; raises mcp.toolTimeoutMs from 300000 (the default) to 86400000',
    read: (s) => s.mcp,
    untrusted: undefined,
    trusted: { startupTimeoutMs: 86_400_000, toolTimeoutMs: 86_400_000 },
  },
];

describe('a project raises a limit: it waits for trust', () => {
  it.each(raises)('$name', (row) => {
    const before = untrusted(row.project, row.user);
    expect(row.read(before.settings)).toEqual(row.untrusted);
    expect(before.ignored).toContain(row.key);
    expect(before.guarded.find((g) => g.key === row.key)?.why).toBe(row.why);
    const after = trusted(row.project, row.user);
    expect(row.read(after.settings)).toEqual(row.trusted);
    expect(after.ignored).toEqual([]);
  });

  it('shows only the loosened numbers, with the figures they were compared with', () => {
    const { guarded } = untrusted({ maxTurns: 100_000, agents: { maxTurns: 3, maxConcurrent: 32 } });
    expect(guarded).toEqual([
      { key: 'maxTurns', value: 100_000, yours: 100, why: 'raises maxTurns from 100 (the default) to 100000' },
      {
        key: 'agents',
        value: { maxConcurrent: 32 },
        yours: { maxConcurrent: 4 },
        why: 'raises agents.maxConcurrent from 4 to 32',
      },
    ]);
  });

  it('escapes and cuts a model id from the file before it reaches the prompt', () => {
    const id = `\u001b[2J\u202e${'x'.repeat(200)}`;
    const [setting] = untrusted({ models: { [id]: { inputPrice: 0 } } }).guarded;
    expect(setting?.why).not.toContain('\u001b');
    expect(setting?.why).not.toContain('\u202e');
    expect(setting?.why).toContain('\\u001b[2J\\u{202e}xxx');
    expect(setting?.why.length).toBeLessThan(160);
  });
});

describe('a project lowers a limit: it applies untrusted', () => {
  it.each<[string, Settings, Settings, (s: Settings) => unknown, unknown]>([
    ['maxTurns below the default', {}, { maxTurns: 3 }, (s) => s.maxTurns, 3],
    ['maxTurns equal to the default', {}, { maxTurns: 100 }, (s) => s.maxTurns, 100],
    ["maxTurns below the user's", { maxTurns: 50 }, { maxTurns: 5 }, (s) => s.maxTurns, 5],
    [
      'timeouts and retries',
      {},
      { firstByteTimeoutMs: 5000, idleTimeoutMs: 5000, maxRetries: 0 },
      (s) => [s.firstByteTimeoutMs, s.idleTimeoutMs, s.maxRetries],
      [5000, 5000, 0],
    ],
    ['maxTokens', {}, { maxTokens: 1024 }, (s) => s.maxTokens, 1024],
    [
      'web_fetch',
      {},
      { webFetchMaxBytes: 1024, webFetchTimeoutMs: 1000 },
      (s) => [s.webFetchMaxBytes, s.webFetchTimeoutMs],
      [1024, 1000],
    ],
    [
      'a session budget where the user has none',
      {},
      { agents: { maxSessionTokens: 10_000, maxSessionCostUsd: 1 } },
      (s) => s.agents,
      { ...SETTINGS_DEFAULTS.agents, maxSessionTokens: 10_000, maxSessionCostUsd: 1 },
    ],
    ['a longer poll', {}, { agents: { pollTimeoutMs: 3_600_000 } }, (s) => s.agents?.pollTimeoutMs, 3_600_000],
    ['MCP timeouts', { mcp: { toolTimeoutMs: 60_000 } }, { mcp: { toolTimeoutMs: 1000 } }, (s) => s.mcp, { toolTimeoutMs: 1000 }],
    [
      'a smaller window for a local model',
      {},
      { models: { 'qwen3-coder': { contextWindow: 32_768, maxOutput: 4096 } } },
      (s) => modelInfo('qwen3-coder', s.models),
      { ...FALLBACK_MODEL, contextWindow: 32_768, maxOutput: 4096 },
    ],
    [
      "a price equal to the user's",
      { models: { m: { inputPrice: 2 } } },
      { models: { m: { inputPrice: 2 } } },
      (s) => s.models,
      { m: { inputPrice: 2 } },
    ],
  ])('%s', (_name, user, project, read, expected) => {
    const result = untrusted(project, user);
    expect(result.guarded).toEqual([]);
    expect(read(result.settings)).toEqual(expected);
  });

  it('keeps the lowering of a key whose other number raises, and holds back only the raise', () => {
    const project: Settings = { agents: { maxTurns: 3, maxConcurrent: 32 } };
    const result = untrusted(project, { agents: { maxConcurrent: 2 } });
    expect(result.settings.agents).toEqual({ ...SETTINGS_DEFAULTS.agents, maxTurns: 3, maxConcurrent: 2 });
    expect(result.ignored).toEqual(['agents']);
    expect(trusted(project, { agents: { maxConcurrent: 2 } }).settings.agents?.maxConcurrent).toBe(32);
  });

  it("lays a model entry that lowers a window over the user's own figures, so it cannot carry off the user's prices", () => {
    // The user prices a local family; the project adds an entry for one member, which modelInfo
    // would prefer (longest prefix) over the user's, with no price in it.
    const user: Settings = { models: { 'my-llm': { inputPrice: 5, outputPrice: 10, contextWindow: 200_000 } } };
    const project: Settings = { models: { 'my-llm-v2': { contextWindow: 100_000, inputPrice: 0 } } };
    const { settings, guarded } = untrusted(project, user);
    expect(modelInfo('my-llm-v2', settings.models)).toMatchObject({ contextWindow: 100_000, inputPrice: 5, outputPrice: 10 });
    expect(modelInfo('my-llm-v2-fast', settings.models)).toMatchObject({ inputPrice: 5, outputPrice: 10 });
    expect(modelInfo('my-llm-v1', settings.models)).toMatchObject({ contextWindow: 200_000, inputPrice: 5 });
    expect(guarded.map((g) => g.value)).toEqual([{ 'my-llm-v2': { inputPrice: 0 } }]);
    // A window above the user's for the family is a raise.
    expect(untrusted({ models: { 'my-llm-v2': { contextWindow: 300_000 } } }, user).guarded[0]?.why).toBe(
      'raises models["my-llm-v2"].contextWindow from 200000 to 300000',
    );
  });

  it("lets a flag decide: the project's number for it is neither taken nor reported", () => {
    const flags: Settings = { maxTurns: 7, agents: { maxConcurrent: 2 } };
    const result = untrusted({ maxTurns: 100_000, agents: { maxConcurrent: 32, maxTurns: 100 } }, {}, flags);
    expect(result.settings.maxTurns).toBe(7);
    expect(result.settings.agents?.maxConcurrent).toBe(2);
    expect(result.guarded).toEqual([
      { key: 'agents', value: { maxTurns: 100 }, yours: { maxTurns: 10 }, why: 'raises agents.maxTurns from 10 to 100' },
    ]);
  });
});

describe("each limit's fallback is the one its consumer uses", () => {
  it('top-level numbers', () => {
    expect(NUMBER_BOUNDS.maxTurns.unset).toBe(HEADLESS_MAX_TURNS);
    expect(NUMBER_BOUNDS.firstByteTimeoutMs.unset).toBe(DEFAULT_TIMEOUTS.firstByteMs);
    expect(NUMBER_BOUNDS.idleTimeoutMs.unset).toBe(DEFAULT_TIMEOUTS.idleMs);
    expect(NUMBER_BOUNDS.callDeadlineMs.unset).toBe(DEFAULT_CALL_DEADLINE_MS);
    expect(NUMBER_BOUNDS.rateLimitWaitMs.unset).toBe(DEFAULT_RATE_LIMIT_WAIT_MS);
    expect(NUMBER_BOUNDS.webFetchMaxBytes.unset).toBe(WEB_FETCH_DEFAULTS.maxBytes);
    expect(NUMBER_BOUNDS.webFetchTimeoutMs.unset).toBe(WEB_FETCH_DEFAULTS.timeoutMs);
    const provider = resolveProviderConfig({ flags: {}, settings: {}, env: { ANTHROPIC_API_KEY: 'k' } });
    expect(NUMBER_BOUNDS.maxRetries.unset).toBe(provider.maxRetries);
    expect(MCP_BOUNDS.startupTimeoutMs.unset).toBe(DEFAULT_STARTUP_TIMEOUT_MS);
    expect(MCP_BOUNDS.toolTimeoutMs.unset).toBe(DEFAULT_TOOL_TIMEOUT_MS);
  });

  it('every agents.* bound has a fallback, from SETTINGS_DEFAULTS or its own, never both', () => {
    for (const [name, bound] of Object.entries(AGENT_BOUNDS)) {
      // agents.queue is no number: the whole object needs trust (queue-setting.test.ts).
      if (bound.looser === 'guarded') continue;
      const fromDefaults = (SETTINGS_DEFAULTS.agents as Record<string, number | undefined>)[name];
      expect([name, fromDefaults === undefined]).toEqual([name, bound.unset !== undefined]);
    }
  });

  it("a model's window and output floor are at most any model's built-in figure, so a value below them narrows every model", () => {
    for (const info of [FALLBACK_MODEL, ...Object.values(KNOWN_MODELS)]) {
      expect(MODEL_BOUNDS.contextWindow.unset).toBeLessThanOrEqual(info.contextWindow);
      expect(MODEL_BOUNDS.maxOutput.unset).toBeLessThanOrEqual(info.maxOutput);
    }
  });
});

// The walk: every number the settings schema accepts, wherever it sits (records and lists
// included), so a number added later is checked without anyone listing it here.

type Step = { key: string } | { record: true } | { list: true } | { option: number };
type Schema = { def: Record<string, any>; minValue?: number | null; maxValue?: number | null; isInt?: boolean };

/** The key every record gets in the walk (a model id, a hook event): user and project share it. */
const RECORD_KEY = 'k';

/**
 * Numbers where a smaller value lets the agent do more, each with the reason. A number listed
 * here is checked the other way round: a project value below the user's must not apply.
 */
const SMALLER_IS_LOOSER: Record<string, string> = {
  'agents.pollTimeoutMs': 'a shorter wait hands the turn back to the model sooner: more model calls while a sub-agent runs',
};

/** Numbers with no limit when unset, so any value a project gives narrows; each with the reason. */
const UNLIMITED_WHEN_UNSET: Record<string, string> = {
  'agents.maxSessionTokens': 'no session token budget unless one is set',
  'agents.maxSessionCostUsd': 'no session cost budget unless one is set',
  'agents.maxCostUsd': 'no dollar cap on a sub-agent unless one is set',
  'agents.maxToolCalls': 'no tool-call cap on a sub-agent unless one is set',
};

function numberLeaves(schema: Schema, path: Step[] = []): Array<{ path: Step[]; schema: Schema }> {
  const def = schema.def;
  switch (def.type) {
    case 'number':
      return [{ path, schema }];
    case 'optional':
    case 'nullable':
    case 'default':
      return numberLeaves(def.innerType, path);
    case 'pipe':
      return numberLeaves(def.out, path);
    case 'object':
      return Object.entries(def.shape as Record<string, Schema>).flatMap(([key, value]) =>
        numberLeaves(value, [...path, { key }]),
      );
    case 'record':
      return numberLeaves(def.valueType, [...path, { record: true }]);
    case 'array':
      return numberLeaves(def.element, [...path, { list: true }]);
    case 'union':
      return (def.options as Schema[]).flatMap((option, i) => numberLeaves(option, [...path, { option: i }]));
    case 'string':
    case 'boolean':
    case 'enum':
    case 'literal':
      return [];
    default:
      // A kind of schema the walk cannot see into could hide a number: teach the walk first.
      throw new Error(`the walk does not know zod's "${def.type}" at ${pathName(path)}`);
  }
}

function pathName(path: Step[]): string {
  return path
    .map((step) => ('key' in step ? `.${step.key}` : 'record' in step ? '.*' : 'list' in step ? '[]' : ''))
    .join('')
    .slice(1);
}

/** A valid value of `schema` holding `leaf` at `path`; required fields filled in, optional ones left out. */
function build(schema: Schema, path: Step[], leaf: number): unknown {
  const def = schema.def;
  const [step, ...rest] = path;
  switch (def.type) {
    case 'number':
      return leaf;
    case 'optional':
    case 'nullable':
    case 'default':
      return build(def.innerType, path, leaf);
    case 'pipe':
      return build(def.out, path, leaf);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(def.shape as Record<string, Schema>)) {
        if (step && 'key' in step && step.key === key) out[key] = build(value, rest, leaf);
        else if (value.def.type !== 'optional') out[key] = filler(value);
      }
      return out;
    }
    case 'record':
      return { [RECORD_KEY]: build(def.valueType, rest, leaf) };
    case 'array':
      return [build(def.element, rest, leaf)];
    case 'union':
      return build(def.options[step && 'option' in step ? step.option : 0], rest, leaf);
    default:
      throw new Error(`cannot build a "${def.type}"`);
  }
}

function filler(schema: Schema): unknown {
  const def = schema.def;
  switch (def.type) {
    case 'string':
      return 'x';
    case 'boolean':
      return false;
    case 'enum':
      return Object.values(def.entries)[0];
    case 'literal':
      return def.values[0];
    case 'array':
      return [];
    case 'record':
      return {};
    case 'number':
      return 1;
    default:
      return build(schema, [], 1);
  }
}

/** Every number at `path` in resolved settings (lists: each element). */
function numbersAt(value: unknown, path: Step[]): unknown[] {
  if (value === undefined) return [];
  const [step, ...rest] = path;
  if (!step) return [value];
  if ('key' in step || 'record' in step) {
    const key = 'key' in step ? step.key : RECORD_KEY;
    return numbersAt((value as Record<string, unknown>)[key], rest);
  }
  if ('list' in step) return (value as unknown[]).flatMap((item) => numbersAt(item, rest));
  return numbersAt(value, rest);
}

/** Three valid values of a number schema, low < mid < high; mid stands for the user's. */
function valuesOf(schema: Schema): { low: number; mid: number; high: number } {
  const min = typeof schema.minValue === 'number' && Number.isFinite(schema.minValue) ? schema.minValue : 0;
  const low = settingsNumberAccepts(schema, min) ? min : min + 1;
  const bounded = typeof schema.maxValue === 'number' && Number.isFinite(schema.maxValue);
  const high = bounded ? schema.maxValue! : 50_000_000;
  const mid = bounded ? Math.floor((low + high) / 2) : 50_000;
  return { low, mid, high };
}

function settingsNumberAccepts(schema: Schema, value: number): boolean {
  return (schema as unknown as { safeParse(v: unknown): { success: boolean } }).safeParse(value).success;
}

// agents.queue's retries is a number inside a guarded object: the object is judged whole (queue-setting.test.ts).
const leaves = numberLeaves(settingsSchema as unknown as Schema).filter((leaf) => pathName(leaf.path) !== 'agents.queue.retries');

describe('every number of the settings schema, walked', () => {
  it('finds the numbers, nested ones included', () => {
    const names = leaves.map((leaf) => pathName(leaf.path));
    expect(names).toEqual(
      expect.arrayContaining([
        'maxTurns',
        'maxRetries',
        'agents.maxConcurrent',
        'agents.pollTimeoutMs',
        'models.*.inputPrice',
        'models.*.contextWindow',
        'mcp.toolTimeoutMs',
        'hooks.*[].hooks[].timeout',
      ]),
    );
    for (const name of [...Object.keys(SMALLER_IS_LOOSER), ...Object.keys(UNLIMITED_WHEN_UNSET)]) expect(names).toContain(name);
  });

  it.each(leaves.map((leaf) => [pathName(leaf.path), leaf] as const))(
    "%s: a project value looser than the user's does not apply untrusted, and does trusted",
    (name, leaf) => {
      const { low, mid, high } = valuesOf(leaf.schema);
      const looser = name in SMALLER_IS_LOOSER ? low : high;
      const user = settingsSchema.parse(build(settingsSchema as unknown as Schema, leaf.path, mid));
      const project = settingsSchema.parse(build(settingsSchema as unknown as Schema, leaf.path, looser));
      expect(numbersAt(untrusted(project, user).settings, leaf.path), 'untrusted').not.toContain(looser);
      // The path reaches the number: trusted, the project's value is there.
      expect(numbersAt(trusted(project, user).settings, leaf.path), 'trusted').toContain(looser);
      // With no value of the user's, the default (or nothing) is the bar.
      const bare = numbersAt(untrusted(project, {}).settings, leaf.path);
      if (name in UNLIMITED_WHEN_UNSET) expect(bare).toContain(looser);
      else expect(bare, 'with no user value').not.toContain(looser);
    },
  );

  it.each(leaves.filter((leaf) => /Price$/.test(pathName(leaf.path))).map((leaf) => [pathName(leaf.path), leaf] as const))(
    '%s: a price from the project applies only when trusted, lower or higher',
    (_name, leaf) => {
      const { low, mid, high } = valuesOf(leaf.schema);
      const user = settingsSchema.parse(build(settingsSchema as unknown as Schema, leaf.path, mid));
      for (const value of [low, high]) {
        const project = settingsSchema.parse(build(settingsSchema as unknown as Schema, leaf.path, value));
        expect(numbersAt(untrusted(project, user).settings, leaf.path)).toEqual([mid]);
        expect(numbersAt(untrusted(project, {}).settings, leaf.path)).toEqual([]);
      }
    },
  );
});
