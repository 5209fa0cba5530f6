import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClaudeSettings, readClaudeSettings } from '../../../src/core/config/claude-settings.js';
import { recordTrustAnswer, reviewSettings, settingsFromReview } from '../../../src/core/config/review-settings.js';

function folders() {
  const base = mkdtempSync(path.join(os.tmpdir(), 'outrider-claude-settings-'));
  const cwd = path.join(base, 'project');
  const home = path.join(base, 'home');
  const outriderHome = path.join(base, 'outrider');
  mkdirSync(path.join(cwd, '.claude'), { recursive: true });
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  const write = (file: string, value: unknown) =>
    writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return {
    cwd,
    env: { HOME: home, OUTRIDER_HOME: outriderHome },
    project: (value: unknown) => write(path.join(cwd, '.claude', 'settings.json'), value),
    local: (value: unknown) => write(path.join(cwd, '.claude', 'settings.local.json'), value),
    user: (value: unknown) => write(path.join(home, '.claude', 'settings.json'), value),
    outriderProject: (value: unknown) => {
      mkdirSync(path.join(cwd, '.outrider'), { recursive: true });
      write(path.join(cwd, '.outrider', 'settings.json'), value);
    },
  };
}

describe("Claude Code's settings files", () => {
  it('takes permissions, hooks, model, defaultMode and additionalDirectories; names every other key once', () => {
    const read = parseClaudeSettings(
      JSON.stringify({
        $schema: 'https://json.schemastore.org/claude-code-settings.json',
        permissions: {
          allow: ['Bash(npm run test:*)'],
          deny: ['Read(./.env)', 'Bash('],
          ask: ['Bash(git push:*)'],
          defaultMode: 'acceptEdits',
          additionalDirectories: ['../docs'],
          disableBypassPermissionsMode: 'disable',
        },
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo hi' }] }] },
        model: 'opus',
        env: { FOO: '1' },
        outputStyle: 'Explanatory',
      }),
      '/p/.claude/settings.json',
    );
    expect(read.settings).toEqual({
      permissions: { allow: ['Bash(npm run test:*)'], deny: ['Read(./.env)'], ask: ['Bash(git push:*)'] },
      permissionMode: 'accept-edits',
      addDirs: ['../docs'],
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo hi' }] }] },
      model: 'opus',
    });
    expect(read.warnings).toEqual([
      expect.stringMatching(/permissions\.deny\[1\]: "Bash\(" does not end with "\)".*; left out$/),
      '/p/.claude/settings.json: outrider does not honour "permissions.disableBypassPermissionsMode", "env", "outputStyle" (see docs/claude-code.md)',
    ]);
  });

  it('a broken or hostile file costs only itself: never a crash, never a prototype', () => {
    expect(parseClaudeSettings('{ "permissions": ', 'f').warnings[0]).toMatch(/^f: invalid JSON at line 1.*not used$/);
    expect(parseClaudeSettings('[1, 2]', 'f').warnings[0]).toMatch(/expected a JSON object/);
    const hostile = parseClaudeSettings(
      '{"__proto__": {"polluted": true}, "permissions": {"deny": [7, "Read(x)"], "allow": "Bash"}, "hooks": {"PreToolUse": 3}}',
      'f',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(hostile.settings).toEqual({ permissions: { deny: ['Read(x)'] } });
    expect(hostile.warnings.join('\n')).toMatch(/permissions\.deny\[0\]: not a string/);
    expect(hostile.warnings.join('\n')).toMatch(/permissions\.allow: expected a list of rules/);
    expect(hostile.warnings.join('\n')).toMatch(/hooks\.PreToolUse: expected a list/);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-claude-fifo-'));
    expect(readClaudeSettings(path.join(dir, 'missing.json'))).toBeUndefined();
    expect(readClaudeSettings(dir)?.warnings[0]).toMatch(/not a regular file.*not used/);
  });

  it("joins the layers: Claude's user file under outrider's, the project's files under outrider's project file", () => {
    const f = folders();
    f.user({ permissions: { deny: ['Bash(curl:*)'] }, model: 'haiku' });
    f.project({ permissions: { deny: ['Read(./secrets/**)'], allow: ['Bash(touch:*)'] } });
    f.local({ permissions: { deny: ['Read(./.env)'] } });
    const review = reviewSettings({ cwd: f.cwd, env: f.env, flags: {} });
    const untrusted = settingsFromReview(review);
    // Deny rules of every file apply; the project's allow waits for trust.
    expect(untrusted.settings.permissions).toEqual({ deny: ['Bash(curl:*)', 'Read(./secrets/**)', 'Read(./.env)'] });
    expect(untrusted.settings.model).toBe('haiku');
    expect(untrusted.warning).toMatch(
      /^ignored permissions \(its deny and ask rules still apply\) from .*\.claude\/settings\.json, .*\.claude\/settings\.local\.json: this folder is not trusted/,
    );
    expect(review.projectFile).toBe(path.join(f.cwd, '.claude', 'settings.json'));
    const trusted = settingsFromReview(recordTrustAnswer(review, 'trusted'));
    expect(trusted.settings.permissions?.allow).toEqual(['Bash(touch:*)']);
  });

  it("a project's Claude hooks follow the trust rules of outrider's own project hooks", () => {
    const f = folders();
    f.project({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'touch /tmp/pwned' }] }] } });
    const review = reviewSettings({ cwd: f.cwd, env: f.env, flags: {} });
    expect(review.guarded.map((g) => g.key)).toEqual(['hooks']);
    expect(settingsFromReview(review).settings.hooks).toBeUndefined();
    expect(settingsFromReview(review, { trusted: true }).settings.hooks?.Stop).toHaveLength(1);
  });

  it('--setting-sources picks the files: user, project, local', () => {
    const f = folders();
    f.user({ permissions: { deny: ['Bash(a:*)'] } });
    f.project({ permissions: { deny: ['Bash(b:*)'] } });
    f.local({ permissions: { deny: ['Bash(c:*)'] } });
    f.outriderProject({ permissions: { deny: ['Bash(d:*)'] } });
    const deny = (sources: Array<'user' | 'project' | 'local'>) =>
      settingsFromReview(reviewSettings({ cwd: f.cwd, env: f.env, flags: {}, sources })).settings.permissions?.deny;
    expect(deny(['user', 'project', 'local'])).toEqual(['Bash(a:*)', 'Bash(b:*)', 'Bash(c:*)', 'Bash(d:*)']);
    expect(deny(['local'])).toEqual(['Bash(c:*)']);
    expect(deny(['project'])).toEqual(['Bash(b:*)', 'Bash(d:*)']);
    expect(deny([])).toBeUndefined();
  });

  it("--settings takes a file or JSON text, of outrider keys or Claude Code ones, as the user's word", () => {
    const f = folders();
    const inline = reviewSettings({
      cwd: f.cwd,
      env: f.env,
      flags: { model: 'from-flag' },
      settingsArg: '{"permissions": {"allow": ["Bash(make:*)"]}, "hooks": {"Stop": []}, "model": "m", "cleanupPeriodDays": 3}',
    });
    const resolved = settingsFromReview(inline);
    expect(resolved.settings.permissions?.allow).toEqual(['Bash(make:*)']);
    expect(resolved.settings.model).toBe('from-flag');
    expect(resolved.notes).toEqual([expect.stringContaining('does not honour "cleanupPeriodDays"')]);
    const own = reviewSettings({ cwd: f.cwd, env: f.env, flags: {}, settingsArg: '{"maxTurns": 3}' });
    expect(settingsFromReview(own).settings.maxTurns).toBe(3);
    expect(() => reviewSettings({ cwd: f.cwd, env: f.env, flags: {}, settingsArg: 'nope.json' })).toThrow(
      /--settings nope.json: no such file/,
    );
    expect(() => reviewSettings({ cwd: f.cwd, env: f.env, flags: {}, settingsArg: '{"a": ' })).toThrow(/invalid JSON/);
  });
});
