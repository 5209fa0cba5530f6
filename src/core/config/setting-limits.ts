import { canonicalJson } from '../platform/canonical-json.js';
import { safeText } from '../platform/safe-text.js';
import type { AgentSettings, McpSettings, ModelSettings, Settings } from './settings.js';
import { formatKeyPath } from './zod-issues.js';

// The numbers of the settings that bound how much the agent does: turns, tokens, retries,
// timeouts, budgets, concurrency, depth, bytes. A repository's settings file may make the agent
// do less without the folder's trust, never more: otherwise `maxTurns: 100000` or a hang guard
// of a week would come with a clone. Prices are no limit but decide what the cost budgets
// count, so a project's apply only in a trusted folder, whichever way they go.

/** Which way one number of the settings loosens what it bounds. */
export interface Bound {
  /**
   * `bigger`: a larger value lets the agent do more; `smaller`: a smaller one does; `either`:
   * any value other than the user's needs trust (prices).
   */
  looser: 'bigger' | 'smaller' | 'either' | 'guarded';
  /**
   * The value in effect when no settings layer gives one: the fallback of the code that applies
   * it (`Infinity`: no limit). Left out where SETTINGS_DEFAULTS holds it. With neither, a
   * project's value cannot be shown to tighten anything, so it waits for trust.
   */
  unset?: number;
  /** Of a `guarded` entry (not a number: `agents.queue`): what it does, for the trust prompt. */
  why?: string;
}

/** How the numbers under one settings key are laid out. */
export type Limits =
  /** The key is one number. */
  | { number: Bound }
  /** The key is an object of numbers, merged entry by entry (`agents`, `mcp`). */
  | { entries: Readonly<Record<string, Bound>> }
  /** The key maps model ids to objects of numbers (`models`), prices among them. */
  | { modelEntries: Readonly<Record<string, Bound>> };

const bigger = (unset?: number): Bound => (unset === undefined ? { looser: 'bigger' } : { looser: 'bigger', unset });
const PRICE: Bound = { looser: 'either' };

/** The top-level numbers; each fallback is the one its consumer uses (setting-limits.test.ts holds them equal). */
export const NUMBER_BOUNDS = {
  // provider-config.ts; each retry is one more model call.
  maxRetries: bigger(4),
  // providers/timeouts.ts: the hang guard of a request that sends nothing.
  firstByteTimeoutMs: bigger(60_000),
  idleTimeoutMs: bigger(180_000),
  // providers/deadline.ts: a longer firstByteTimeoutMs stretches it, and that key has its own bound.
  callDeadlineMs: bigger(150_000),
  // providers/rate-limit-wait.ts: a longer bound keeps a rate-limited job waiting (and the turn on it) for longer.
  rateLimitWaitMs: bigger(600_000),
  // Headless stops at 100 (open-session.ts); the TUI has no cap, but trust is settled before
  // the front end is known, so the stricter figure stands for both.
  maxTurns: bigger(100),
  // open-session.ts's default output cap per model call.
  maxTokens: bigger(8_192),
  // tools/web-fetch.ts.
  webFetchMaxBytes: bigger(5 * 1024 * 1024),
  webFetchTimeoutMs: bigger(30_000),
} as const satisfies { [K in keyof Settings]?: Bound };

/** `agents.*`; a key added to the schema does not compile without its bound. */
export const AGENT_BOUNDS: { readonly [K in keyof AgentSettings]-?: Bound } = {
  maxConcurrent: bigger(),
  // Smaller is looser: a poll that returns sooner hands the turn back to the model, so waiting
  // on a sub-agent costs more model calls. A longer one ends when the job does, whose own
  // duration is bounded (maxDurationMs), and the user can interrupt it.
  pollTimeoutMs: { looser: 'smaller' },
  // No session budget unless one is set.
  maxSessionTokens: bigger(Infinity),
  maxSessionCostUsd: bigger(Infinity),
  maxTurns: bigger(),
  maxTotalTokens: bigger(),
  maxDurationMs: bigger(),
  // No per-job dollar or tool-call cap unless one is set (agents/definition-caps.ts).
  maxCostUsd: bigger(Infinity),
  maxToolCalls: bigger(Infinity),
  // agents/session-agents.ts: only the main agent starts sub-agents unless set.
  maxAgentDepth: bigger(1),
  // jobs/stall-watch.ts: a later notice leaves a stuck sub-agent running, unseen, for longer.
  stallNoticeMs: bigger(300_000),
  // No number: how many sub-agents a turn starts without asking. A project's needs the folder's trust.
  approve: { looser: 'guarded', why: 'changes how many sub-agents one turn may start before you are asked' },
  // No number: a command every merge of worktree jobs runs. A project's needs the folder's trust, like hooks.
  mergeCheck: { looser: 'guarded', why: 'runs this command on your machine whenever sub-agents are merged' },
  // worktrees/merge-check.ts: a longer bound lets a hung check hold the merge for longer.
  mergeCheckTimeoutMs: bigger(600_000),
  // No number: where jobs and the code go. A project's needs the folder's trust, like baseURL.
  queue: { looser: 'guarded', why: 'sends sub-agent jobs, and a snapshot of your code, to this queue and git remote' },
};

/** `mcp.*`: mcp/manager.ts's fallbacks. */
export const MCP_BOUNDS: { readonly [K in keyof McpSettings]-?: Bound } = {
  startupTimeoutMs: bigger(30_000),
  toolTimeoutMs: bigger(300_000),
};

/** `models.<id>.*`. */
export const MODEL_BOUNDS: { readonly [K in keyof Omit<ModelSettings, 'images'>]-?: Bound } = {
  // Which model an id is, hence its built-in figures, is the session's business (providers/models.ts);
  // these are the smallest of them all, fallback included, so a project value at or below one
  // narrows every model. A bigger window also means bigger (dearer) requests.
  contextWindow: bigger(128_000),
  maxOutput: bigger(8_192),
  inputPrice: PRICE,
  outputPrice: PRICE,
  cacheReadPrice: PRICE,
  cacheWritePrice: PRICE,
};

/** A project's value for one key, split by what it does to the user's own. */
export interface LimitSplit {
  /** What applies without trust: every number as strict as the user's (undefined: nothing). */
  tighter?: unknown;
  /** What waits for the folder's trust: the numbers that loosen, as the project gives them. */
  looser?: unknown;
  /** The user's figures (defaults included) that `looser` was compared with. */
  yours?: unknown;
  /** One phrase per loosened number, for the trust prompt: `raises maxTurns from 100 to 100000`. */
  changes: string[];
}

type Numbers = Readonly<Record<string, number | undefined>>;

/**
 * Splits the project's value of `key` into what tightens the user's (`yours`, defaults
 * included) and what loosens it. A number the flags set is the user's word: the project's is
 * neither taken nor reported.
 */
export function splitLimits(
  key: string,
  limits: Limits,
  project: unknown,
  context: { yours: unknown; flags: unknown },
): LimitSplit {
  if ('number' in limits) {
    if (context.flags !== undefined) return { changes: [] };
    const split = splitNumbers([], { [key]: limits.number }, { [key]: project as number }, { [key]: context.yours as number });
    return { tighter: split.tighter[key], looser: split.looser[key], yours: split.yours[key], changes: split.changes };
  }
  if ('entries' in limits) {
    const flags = context.flags as Numbers | undefined;
    const entries = Object.fromEntries(Object.entries(project as Numbers).filter(([name]) => flags?.[name] === undefined));
    const split = splitNumbers([key], limits.entries, entries, context.yours as Numbers | undefined);
    return { ...present(split), changes: split.changes };
  }
  return splitModels(key, limits.modelEntries, project as ModelTable, context.yours as ModelTable | undefined, context.flags);
}

type ModelTable = Readonly<Record<string, ModelSettings | undefined>>;

function splitModels(
  key: string,
  bounds: Readonly<Record<string, Bound>>,
  project: ModelTable,
  yours: ModelTable | undefined,
  flags: unknown,
): LimitSplit {
  const tighter: Array<[string, ModelSettings]> = [];
  const looser: Array<[string, Numbers]> = [];
  const compared: Array<[string, Numbers]> = [];
  const changes: string[] = [];
  for (const [id, given] of Object.entries(project)) {
    if (given === undefined || (isObject(flags) && Object.hasOwn(flags, id))) continue;
    // Whether a model takes images is no limit: a project may say it (a wrong word only makes
    // its requests fail, or its images go unsent), so it is taken as it is.
    const { images, ...entry } = given;
    // A project entry replaces the user's for this id and for every id it prefixes (modelInfo
    // picks the longest match), so what it takes is laid over the user's figures for the id:
    // a lowered window must not carry off the user's prices with it.
    const own = entryFor(yours, id);
    const { images: _ownImages, ...ownNumbers } = own ?? {};
    const split = splitNumbers([key, id], bounds, entry, own && ownNumbers);
    if (Object.keys(split.tighter).length > 0 || images !== undefined) {
      tighter.push([id, { ...own, ...split.tighter, ...(images !== undefined ? { images } : {}) }]);
    }
    if (Object.keys(split.looser).length > 0) {
      looser.push([id, split.looser]);
      compared.push([id, split.yours]);
    }
    changes.push(...split.changes);
    if (split.prices.length > 0) {
      const prices = split.prices.map(([name, value]) => `${name} ${value}`).join(', ');
      changes.push(`sets prices of ${shownPath([key, id])}: ${prices} (prices decide what your cost budgets count)`);
    }
  }
  return {
    tighter: tighter.length > 0 ? Object.fromEntries(tighter) : undefined,
    looser: looser.length > 0 ? Object.fromEntries(looser) : undefined,
    yours: compared.length > 0 ? Object.fromEntries(compared) : undefined,
    changes,
  };
}

/** The user's entry for a model id as providers/models.ts's modelInfo finds it: the exact id, else the longest prefix. */
function entryFor(table: ModelTable | undefined, id: string): ModelSettings | undefined {
  if (!table) return undefined;
  if (Object.hasOwn(table, id)) return table[id];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (id.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

interface NumbersSplit {
  tighter: Record<string, number>;
  looser: Record<string, number>;
  yours: Record<string, number>;
  /** A phrase for each loosened limit. */
  changes: string[];
  /** The prices of `looser`, said together by the caller. */
  prices: Array<[string, number]>;
}

/** Each number of `project` (under `path`) against the user's figure for it. */
function splitNumbers(
  path: readonly string[],
  bounds: Readonly<Record<string, Bound>>,
  project: Numbers,
  yours: Numbers | undefined,
): NumbersSplit {
  const tighter: Array<[string, number]> = [];
  const looser: Array<[string, number]> = [];
  const compared: Array<[string, number]> = [];
  const changes: string[] = [];
  const prices: Array<[string, number]> = [];
  for (const [name, value] of Object.entries(project)) {
    if (value === undefined) continue;
    const bound = Object.hasOwn(bounds, name) ? bounds[name] : undefined;
    const own = yours !== undefined && Object.hasOwn(yours, name) ? yours[name] : undefined;
    const verdict = judge([...path, name], bound, value, own);
    if (!verdict.looser) {
      tighter.push([name, value]);
      continue;
    }
    looser.push([name, value]);
    if (verdict.base !== undefined) compared.push([name, verdict.base]);
    if (verdict.change === undefined) prices.push([name, value]);
    else changes.push(verdict.change);
  }
  return {
    tighter: Object.fromEntries(tighter),
    looser: Object.fromEntries(looser),
    yours: Object.fromEntries(compared),
    changes,
    prices,
  };
}

/**
 * Whether one number of the project loosens the user's, the figure it was compared with, and
 * how to say so (a price is said by the caller, with the entry's other prices).
 */
function judge(
  path: readonly string[],
  bound: Bound | undefined,
  value: number,
  yours: number | undefined,
): { looser: boolean; change?: string; base?: number } {
  const where = shownPath(path);
  if (bound?.looser === 'guarded') {
    const same = canonicalJson(value) === canonicalJson(yours);
    return same ? { looser: false } : { looser: true, change: `sets ${where}: ${bound.why ?? 'needs your trust'}` };
  }
  // Unreachable for validated settings (every key has a bound); strict all the same.
  if (bound === undefined) return { looser: true, change: `sets ${where} to ${value}, a number no rule covers` };
  if (bound.looser === 'either') return { looser: value !== yours, base: yours };
  const base = yours ?? bound.unset;
  if (base === undefined) return { looser: true, change: `sets ${where} to ${value}, with no value of yours to compare it with` };
  if (bound.looser === 'bigger' ? value <= base : value >= base) return { looser: false };
  const from = yours === undefined ? `${base} (the default)` : String(base);
  return { looser: true, change: `${bound.looser === 'bigger' ? 'raises' : 'lowers'} ${where} from ${from} to ${value}`, base };
}

/** A key path for the prompt; model ids come from the project file, so they are escaped and cut. */
function shownPath(path: readonly string[]): string {
  return safeText(formatKeyPath(path.map((part) => (part.length > 60 ? `${part.slice(0, 59)}…` : part))));
}

/** The parts of a split that hold a number; an empty part is none. */
function present(split: NumbersSplit): Pick<LimitSplit, 'tighter' | 'looser' | 'yours'> {
  const some = (numbers: Record<string, number>) => (Object.keys(numbers).length > 0 ? numbers : undefined);
  return { tighter: some(split.tighter), looser: some(split.looser), yours: some(split.yours) };
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
