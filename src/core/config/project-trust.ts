import { createHash } from 'node:crypto';
import { canonicalJson } from '../platform/canonical-json.js';
import { safeText } from '../platform/safe-text.js';
import { splitLimits } from './setting-limits.js';
import { SETTING_TRUST, type TrustRule } from './setting-trust.js';
import { type Settings, mergeSettings } from './settings.js';

/** The settings layers, lowest first; `project` is the one that may not be the user's word. */
export interface SettingsLayers {
  defaults: Settings;
  user: Settings;
  project: Settings;
  flags: Settings;
}

/** A project key that would widen the user's own settings, so it applies only in a trusted folder. */
export interface GuardedSetting {
  key: keyof Settings;
  /** The project's value; of a `limits` key, only the numbers that loosen the user's. */
  value: unknown;
  /** What the key can do, for the trust prompt; of a `limits` key, each number it loosens and how. */
  why: string;
  /** The value the user's own settings give (defaults included); of a `limits` key, the figures `value` was compared with. */
  yours: unknown;
}

/** The effective settings, and what trust decided about the project's keys. */
export interface ResolvedSettings {
  settings: Settings;
  /** The project's keys that needed trust (whatever the answer), in the file's order. */
  guarded: GuardedSetting[];
  /** The keys of `guarded` that were left out: all of them when untrusted, none when trusted. */
  ignored: Array<keyof Settings>;
}

/**
 * Merges defaults, user, project and flags (later wins), taking from the project only what
 * its rule allows: `free` keys always; `guarded` keys when the folder is trusted or the value
 * is within the user's own (a stricter mode, a subset of `addDirs`); of `limits` keys, every
 * number as strict as the user's (a lower `maxTurns`), the whole value when trusted. A key
 * the flags set is the user's word already, so the project's value for it needs no trust and
 * is not reported.
 */
export function resolveSettings(layers: SettingsLayers, options: { trusted: boolean }): ResolvedSettings {
  const yours = mergeSettings(layers.defaults, layers.user);
  const taken: Record<string, unknown> = {};
  const guarded: GuardedSetting[] = [];
  for (const [name, value] of Object.entries(layers.project)) {
    const key = name as keyof Settings;
    if (value === undefined) continue;
    const rule = SETTING_TRUST[key] as TrustRule<unknown>;
    if (rule.kind === 'limits') {
      // A key of several numbers keeps those that tighten, so `agents: { maxTurns: 3,
      // maxConcurrent: 32 }` still lowers maxTurns untrusted; only the raise waits for trust.
      const split = splitLimits(key, rule.limits, value, { yours: yours[key], flags: layers.flags[key] });
      if (split.looser !== undefined)
        guarded.push({ key, value: split.looser, why: split.changes.join('; '), yours: split.yours });
      const take = options.trusted ? value : split.tighter;
      if (take !== undefined) taken[key] = take;
      continue;
    }
    if (rule.kind === 'guarded') {
      // A flag replaces the value whole (rule lists join it): the project's does not matter.
      if (layers.flags[key] !== undefined && !rule.narrowing) continue;
      if (!isWithin(rule, value, yours[key])) {
        guarded.push({ key, value, why: rule.why, yours: yours[key] });
        if (!options.trusted) {
          // What only narrows (deny and ask rules) applies all the same.
          const narrowing = rule.narrowing?.(value as never);
          if (narrowing !== undefined) taken[key] = narrowing;
          continue;
        }
      }
    }
    taken[key] = value;
  }
  return {
    settings: mergeSettings(layers.defaults, layers.user, taken as Settings, layers.flags),
    guarded,
    ignored: options.trusted ? [] : guarded.map((g) => g.key),
  };
}

function isWithin(rule: Extract<TrustRule<unknown>, { kind: 'guarded' }>, project: unknown, user: unknown): boolean {
  if (rule.within) return rule.within(project as never, user as never);
  return user !== undefined && canonicalJson(project) === canonicalJson(user);
}

/**
 * Names the values of every guarded or limits key in a project file (within the user's or
 * not, flags aside): a trust answer holds for these values only, so a file changed after the
 * answer (by the model, by a pull) is asked about again: a trusted `maxTurns: 200` that
 * becomes 100000 asks again. Independent of key order and whitespace. `otherFiles` adds the
 * guarded content of the project's other files, by file name.
 */
export function guardedFingerprint(project: Settings, otherFiles?: Record<string, unknown>): string {
  const guardedValues: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(project)) {
    if (value !== undefined && SETTING_TRUST[key as keyof Settings].kind !== 'free') guardedValues[key] = value;
  }
  // Other project files that need trust (`.mcp.json`), under their file names; none leaves older answers valid.
  for (const [file, value] of Object.entries(otherFiles ?? {})) guardedValues[file] = value;
  return `sha256:${createHash('sha256').update(canonicalJson(guardedValues)).digest('hex')}`;
}

/**
 * A value from an untrusted file as one line a person can read safely: JSON, invisible and
 * control characters escaped (a value must not be able to redraw the prompt it appears in),
 * cut to `max` characters.
 */
export function displayValue(value: unknown, max = 120): string {
  const text = safeText(JSON.stringify(value) ?? String(value));
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
