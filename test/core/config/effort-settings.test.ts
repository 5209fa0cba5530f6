import { describe, expect, it } from 'vitest';
import { type SettingsLayers, resolveSettings } from '../../../src/core/config/project-trust.js';
import { SETTINGS_DEFAULTS, type Settings, mergeSettings, parseSettings } from '../../../src/core/config/settings.js';

const layers = (project: Settings, user: Settings = {}): SettingsLayers => ({
  defaults: SETTINGS_DEFAULTS,
  user,
  project,
  flags: {},
});

describe('the effort and openai.api settings', () => {
  it('reads both, and says what is expected of a wrong one', () => {
    expect(parseSettings('{ "effort": "max", "openai": { "api": "responses" } }', 's.json')).toEqual({
      effort: 'max',
      openai: { api: 'responses' },
    });
    expect(() => parseSettings('{ "effort": "extreme" }', 's.json')).toThrow(
      's.json: effort: expected one of "low", "medium", "high", "max", got "extreme"',
    );
    expect(() => parseSettings('{ "openai": { "apu": "chat" } }', 's.json')).toThrow(
      's.json: openai.apu: unknown setting (did you mean "api"?); expected one of api',
    );
    expect(mergeSettings({ openai: { api: 'chat' } }, { openai: {} }, { effort: 'low' })).toEqual({
      openai: { api: 'chat' },
      effort: 'low',
    });
  });

  it("takes a project's effort untrusted only at or below the user's own: thinking is billed", () => {
    const lower = resolveSettings(layers({ effort: 'low' }, { effort: 'high' }), { trusted: false });
    expect(lower.settings.effort).toBe('low');
    const higher = resolveSettings(layers({ effort: 'max' }, { effort: 'high' }), { trusted: false });
    expect(higher.settings.effort).toBe('high');
    expect(higher.guarded.map((g) => g.key)).toEqual(['effort']);
    // The user set none: a project's would start the spending.
    expect(resolveSettings(layers({ effort: 'low' }), { trusted: false }).settings.effort).toBeUndefined();
    expect(resolveSettings(layers({ effort: 'max' }), { trusted: true }).settings.effort).toBe('max');
  });

  it("takes a project's openai.api from any folder: the same server and key, another of its APIs", () => {
    const resolved = resolveSettings(layers({ openai: { api: 'chat' } }), { trusted: false });
    expect(resolved.settings.openai).toEqual({ api: 'chat' });
    expect(resolved.guarded).toEqual([]);
  });
});
